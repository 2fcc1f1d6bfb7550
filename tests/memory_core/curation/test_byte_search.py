"""`ByteNeedles` finds every needle that occurs, wherever it lies in a file (issue 42,
item 19): at any offset, across the boundary of two chunks, beside needles sharing its first
bytes, and nothing that is not there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory_core.curation.byte_search import KEY, ByteNeedles


def test_every_offset_and_only_what_is_there() -> None:
    text = b"0123456789abcdefghijklmnopqrstuvwxyz"
    needles = ByteNeedles([text[i:i + 10] for i in range(0, 27, 3)] + [b"not-in-the-text"])
    assert needles.found(text) == {text[i:i + 10] for i in range(0, 27, 3)}
    assert needles.found(text[:-1]) == {text[i:i + 10] for i in range(0, 25, 3)}


def test_needles_sharing_their_first_bytes_are_told_apart() -> None:
    found = ByteNeedles([b"password=hunter2", b"password=quokka7"]).found(b"..password=quokka7")
    assert found == {b"password=quokka7"}


def test_a_needle_across_two_chunks_of_a_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    data = bytearray(rng.integers(0, 256, 3000, dtype=np.uint8).tobytes())
    needles = [bytes(data[start:start + 40]) for start in (0, 1000 - 20, 1000 - 1, 2960)]
    path = tmp_path / "data.lance"
    path.write_bytes(bytes(data))
    search = ByteNeedles([*needles, b"\x00" * 40 + b"absent"])
    # chunks of 100 bytes (at least twice the longest needle): 3 boundaries crossed
    assert search.found_in_file(path, chunk=100) == set(needles)
    assert search.found_in_file(path) == set(needles)


def test_a_needle_shorter_than_the_key_is_refused() -> None:
    with pytest.raises(ValueError, match=f"at least {KEY} bytes"):
        ByteNeedles([b"short"])
