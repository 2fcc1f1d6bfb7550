"""`ByteNeedles`: find many byte strings in files in one pass over each file.

Testing each needle with `needle in data` reads a file once per needle: a purge of 4,000
memories looks for 8,000 needles (each content and each vector), so every store file was
scanned 8,000 times. Here each file is read once, in chunks, and every offset of a chunk is
tested against all needles at once: the 8 bytes starting there, as an integer, are hashed
into a bitmap of the needles' last 8 bytes (numpy, 8 strided views of the chunk); the hits
are checked against the sorted keys, and only the offsets equal to a key are compared with
the needles ending in it (the last bytes, as texts share beginnings, "Decision: ...", more
often than endings). The idea of Rabin-Karp's multi-pattern search (Karp and Rabin,
"Efficient randomized pattern-matching algorithms", 1987) with a fixed window instead of a
rolling hash.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

#: Bytes of a needle's key: the needles must be at least this long.
KEY = 8
_BITS = 20  # a 1 MB bitmap: stays in cache, and 8,000 keys set under 1% of it
_MULT = np.uint64(0x9E3779B97F4A7C15)  # Knuth's multiplicative hash (the golden ratio)
_SHIFT = np.uint64(64 - _BITS)
CHUNK = 8 << 20


class ByteNeedles:
    """Needles (byte strings of at least `KEY` bytes) to look for.

    >>> needles = ByteNeedles([b"hunter2-quokka", b"\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07"])
    >>> sorted(needles.found(b"the password is hunter2-quokka."))
    [b'hunter2-quokka']
    """

    def __init__(self, needles: Iterable[bytes]) -> None:
        unique = sorted({bytes(n) for n in needles})
        short = [n for n in unique if len(n) < KEY]
        if short:
            raise ValueError(f"a needle has at least {KEY} bytes, got {len(short[0])}")
        self._by_key: dict[int, list[bytes]] = {}
        for needle in unique:
            self._by_key.setdefault(int.from_bytes(needle[-KEY:], "little"), []).append(needle)
        keys = np.fromiter(self._by_key, dtype=np.uint64, count=len(self._by_key))
        self._keys = np.sort(keys)
        self._bitmap = np.zeros(1 << _BITS, dtype=bool)
        self._bitmap[(keys * _MULT) >> _SHIFT] = True
        self.longest = max((len(n) for n in unique), default=KEY)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_key.values())

    def found(self, data: bytes) -> set[bytes]:
        """The needles that occur in `data`."""
        out: set[bytes] = set()
        if not self._by_key or len(data) < KEY:
            return out
        for shift in range(KEY):
            count = (len(data) - shift) // KEY
            if count <= 0:
                continue
            # the 8 bytes at offsets shift, shift + 8, shift + 16, ... as integers
            windows = np.frombuffer(data, dtype="<u8", count=count, offset=shift)
            hits = np.flatnonzero(self._bitmap[(windows * _MULT) >> _SHIFT])
            # the bitmap's false hits dropped at once: only windows equal to a key stay
            place = np.minimum(np.searchsorted(self._keys, windows[hits]), len(self._keys) - 1)
            hits = hits[self._keys[place] == windows[hits]]
            for index in hits.tolist():
                end = shift + KEY * (index + 1)  # where a needle ending in this key ends
                for needle in self._by_key.get(int(windows[index]), ()):
                    start = end - len(needle)
                    if start >= 0 and needle not in out and data.startswith(needle, start):
                        out.add(needle)
        # offsets past the last whole window of a shift: shorter than a key, so no needle
        return out

    def found_in_file(self, path: Path, *, chunk: int = CHUNK) -> set[bytes]:
        """The needles that occur in the file at `path`, read once, `chunk` bytes at a time
        (consecutive chunks overlap by the longest needle less one byte, so a needle across
        two chunks is whole in the second)."""
        size = max(chunk, 2 * self.longest)
        overlap = self.longest - 1
        out: set[bytes] = set()
        with path.open("rb") as handle:
            tail = b""
            while block := handle.read(size - len(tail)):
                data = tail + block
                out |= self.found(data)
                tail = data[-overlap:] if overlap else b""
        return out
