"""Files of precomputed vectors: one model's vector of each text, keyed by the text's sha256.

A cache, not a source of truth: `memory_core/demo_data/demo_vectors.npz` holds the offline
model's vectors of the demo corpus so that seeding it embeds nothing. The file records the model id,
the dimension and the model's fingerprint (`model_fingerprint`: for the offline default, the
sha256 of its ONNX, tokenizer and settings), and a reader gets its vectors only for an
embedder of that same model. Vectors are float32 exactly as the model made them (float16
would move rankings).

Format: a zip of three `.npy` members (`np.load` reads it; no pickle): `meta` (JSON text:
format, model_id, dimension, fingerprint), `keys` (uint8, n x 32: the sha256 of each text's
UTF-8 bytes, the exact text the importer embeds) and `vectors` (float32, n x dimension). It
is written with fixed timestamps, so the same vectors give the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tokenize
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.model.config import DEFAULT_MODEL
from memory_core.model.errors import ModelMismatchError, VectorFileError
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    import numpy as np

    from memory_core.embedding.base import Embedder, Progress

FORMAT = "memlens-vectors/1"
MEMBERS = ("meta", "keys", "vectors")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: regenerating the same vectors gives the same bytes
_REGENERATE = ("regenerate it in a checkout with `python -m tools.demo_corpus` or restore it "
               "with `git checkout -- memory_core/demo_data`")


def text_key(text: str) -> bytes:
    """The key of a text: the sha256 digest of its UTF-8 bytes (the exact text embedded)."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def model_fingerprint(model_id: str) -> str:
    """What decides `model_id`'s vectors besides its id: the offline default's fingerprint
    (its files and settings, `offline.offline_fingerprint`); "" for other models, which
    memlens knows by name only. Raises `EmbedderUnavailableError` when the default model's
    package is missing (then nothing can say which vectors it would make)."""
    if model_id != DEFAULT_MODEL:
        return ""
    from memory_core.embedding.offline import offline_fingerprint

    return offline_fingerprint()


@dataclass(frozen=True, eq=False)
class VectorFile:
    """The vectors of a file for one model: `vectors[row[text_key(text)]]`."""

    path: Path
    model_id: str
    dimension: int
    fingerprint: str
    rows: dict[bytes, int]
    vectors: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def vector_of(self, text: str) -> np.ndarray | None:
        """The stored vector of exactly `text`, or None."""
        row = self.rows.get(text_key(text))
        return None if row is None else self.vectors[row]


def _npy(array: Any) -> bytes:
    import numpy as np

    out = io.BytesIO()
    np.lib.format.write_array(out, array, allow_pickle=False)
    return out.getvalue()


def write_vector_file(path: Path, texts: Sequence[str], embedder: Embedder, *,
                      progress: Progress | None = None) -> int:
    """Embed `texts` with `embedder` (in order, in the batches an import uses) and write each
    distinct text's vector to `path`, atomically; returns how many distinct texts."""
    import numpy as np

    vectors = embedder.embed(list(texts), progress=progress)
    first: dict[bytes, int] = {}
    for i, text in enumerate(texts):
        first.setdefault(text_key(text), i)
    keys = np.frombuffer(b"".join(first), dtype=np.uint8).reshape(len(first), 32)
    meta = json.dumps({"format": FORMAT, "model_id": embedder.model_id,
                       "dimension": embedder.dimension,
                       "fingerprint": model_fingerprint(embedder.model_id)}, sort_keys=True)
    arrays = {"meta": np.array(meta), "keys": keys,
              "vectors": np.ascontiguousarray(vectors[list(first.values())], dtype=np.float32)}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w") as archive:
        for name in MEMBERS:
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, _npy(arrays[name]), compresslevel=9)
    os.replace(partial, path)
    return len(first)


def _members(path: Path, names: Iterable[str]) -> dict[str, Any]:
    """The named arrays of the file; `VectorFileError` for anything unreadable."""
    import numpy as np

    if not path.is_file():
        raise VectorFileError(f"the vectors file {path} does not exist; "
                              f"{_REGENERATE}")
    try:
        with zipfile.ZipFile(path) as archive:
            # each member read to its end, where zipfile checks the CRC: np.load reads only
            # the array's bytes and, in a fuzz run, took a damaged member without noticing
            return {name: np.lib.format.read_array(io.BytesIO(archive.read(f"{name}.npy")),
                                                   allow_pickle=False) for name in names}
    # what a damaged zip or .npy raises: a bad CRC, inflate errors, flags read as encryption
    # or an unknown zip version (RuntimeError), a garbled header (SyntaxError, TokenError)
    except (OSError, ValueError, KeyError, EOFError, RuntimeError, SyntaxError,
            zipfile.BadZipFile, zlib.error, tokenize.TokenError) as exc:
        raise VectorFileError(f"the vectors file {path} is damaged or not a "
                              f"memlens vectors file ({exc}); {_REGENERATE}") from exc


def _meta(path: Path) -> dict[str, Any]:
    raw = _members(path, ["meta"])["meta"]
    try:
        meta = json.loads(str(raw))
    except ValueError as exc:
        raise VectorFileError(f"the vectors file {path} has an unreadable header; "
                              f"{_REGENERATE}") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise VectorFileError(f"the vectors file {path} is not in the format "
                              f"{FORMAT!r}; {_REGENERATE}")
    return meta


def read_vector_file(path: Path, embedder: Embedder) -> VectorFile:
    """The vectors of `path` for `embedder`'s model.

    Raises `ModelMismatchError` when the file holds another model's vectors (another id,
    dimension or fingerprint), `VectorFileError` when it is missing, damaged or malformed,
    and `EmbedderUnavailableError` when the model's fingerprint cannot be known. Only the
    header is read before the model is checked.
    """
    import numpy as np

    meta = _meta(path)
    mine = (embedder.model_id, embedder.dimension, model_fingerprint(embedder.model_id))
    theirs = (meta.get("model_id"), meta.get("dimension"), meta.get("fingerprint"))
    if theirs != mine:
        raise ModelMismatchError(
            f"the vectors file {path} holds vectors of {shown(str(theirs[0]))} "
            f"({shown(theirs[1])}-d, fingerprint {shown(str(theirs[2])[:12])}), not of "
            f"{shown(mine[0])} ({mine[1]}-d, fingerprint {mine[2][:12]!r}); the "
            f"texts are embedded by the model instead. To ship vectors of this model, "
            f"{_REGENERATE}")
    arrays = _members(path, ["keys", "vectors"])
    keys, vectors = arrays["keys"], arrays["vectors"]
    rows = len(keys)
    if (keys.dtype != np.uint8 or keys.shape != (rows, 32) or vectors.dtype != np.float32
            or vectors.shape != (rows, embedder.dimension)
            or not np.isfinite(vectors).all()):
        raise VectorFileError(
            f"the vectors file {path} has keys {keys.dtype} {keys.shape} and "
            f"vectors {vectors.dtype} {vectors.shape}; expected uint8 (n, 32) and finite "
            f"float32 (n, {embedder.dimension}); {_REGENERATE}")
    flat = keys.tobytes()
    index = {flat[i * 32:(i + 1) * 32]: i for i in range(rows)}
    if len(index) != rows:
        raise VectorFileError(f"the vectors file {path} holds a text twice; "
                              f"{_REGENERATE}")
    return VectorFile(path, embedder.model_id, embedder.dimension, mine[2], index, vectors)
