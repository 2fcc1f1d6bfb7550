"""Near-duplicates: pairs of memories whose vectors have cosine >= a threshold but whose
contents differ (exact content-hash duplicates are dedup's job, not this).

`near_duplicate_pairs` is the pure core: the vectors are normalised to float32 and
compared block by block (`block` rows against `block` rows, one matrix product each, only
the upper triangle of the diagonal blocks), so memory stays bounded by `block`^2 cosines
plus the pairs found, and no pair is visited by a Python loop. `near_duplicates` runs it
over a store's embedded memories under a filter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from memory_core.errors import InvalidMapParamsError
from memory_core.untrusted import shown

if TYPE_CHECKING:
    import polars as pl

    from memory_core.filters import Filter
    from memory_core.store import MemoryStore

#: `progress(stage, fraction)`, fraction in [0, 1]; the stages of `project` are worded alike.
Progress = Callable[[str, float], None]

DEFAULT_THRESHOLD = 0.95
DEFAULT_BLOCK = 2048
#: float32 cosines of vectors equal at float64 can be this much lower: a pair at the
#: threshold is a pair at or above it.
TOLERANCE = 1e-6
#: The columns of `near_duplicate_pairs`' frame; `near_duplicates` adds the two contents.
PAIR_COLUMNS = ("a", "b", "cosine")


def check_threshold(threshold: float) -> float:
    """`threshold` if it is a number in (0, 1]; `InvalidMapParamsError` otherwise."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not (
            0 < threshold <= 1):
        raise InvalidMapParamsError(
            f"threshold must be a cosine in (0, 1], got {shown(threshold)}; 0.95 finds near "
            f"copies, lower values paraphrases too")
    return float(threshold)


def _check(ids: Sequence[str], vectors: np.ndarray, hashes: Sequence[str | None],
           block: int, limit: int | None) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or len(matrix) != len(ids) or len(hashes) != len(ids):
        raise InvalidMapParamsError(
            f"near-duplicates need one vector and one content hash per id, got {len(ids)} "
            f"ids, vectors of shape {matrix.shape} and {len(hashes)} hashes")
    if len(set(ids)) != len(ids):
        raise InvalidMapParamsError("near-duplicates need distinct ids; some repeat")
    for name, value, low in (("block", block, 1), ("limit", limit, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < low):
            raise InvalidMapParamsError(
                f"{name} must be a whole number >= {low}, got {shown(value)}")
    if not np.isfinite(matrix).all():
        raise InvalidMapParamsError("some vectors hold NaN or infinite values; re-embed them "
                                    "with `memlens reembed`")
    return matrix


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def _block_pairs(unit: np.ndarray, start: int, other: int, block: int, cut: np.float32
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, cosine) with i < j of the block at rows `start`, columns `other`."""
    cosines = unit[start:start + block] @ unit[other:other + block].T
    if start == other:
        cosines = np.triu(cosines, k=1)  # each pair once, never a row with itself
    i, j = np.nonzero(cosines >= cut)
    return i + start, j + other, cosines[i, j]


def _best(i: np.ndarray, j: np.ndarray, cos: np.ndarray, ids: np.ndarray, limit: int | None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs in output order (cosine descending, then ids), the first `limit`."""
    order = np.lexsort((ids[j], ids[i], -cos))[:limit]
    return i[order], j[order], cos[order]


def near_duplicate_pairs(ids: Sequence[str], vectors: np.ndarray,
                         hashes: Sequence[str | None], threshold: float = DEFAULT_THRESHOLD,
                         *, block: int = DEFAULT_BLOCK, limit: int | None = None,
                         progress: Progress | None = None) -> pl.DataFrame:
    """The pairs `a`, `b` (ids, a < b) whose vectors' cosine is >= `threshold` (within
    float32 rounding, `TOLERANCE`) and whose content hashes differ, with their `cosine`,
    sorted by cosine descending (then a, b). `limit` keeps only the best that many (and
    memory to about `limit` pairs). A zero vector is near nothing.

    >>> pairs = near_duplicate_pairs(["x", "y", "z"], np.array([[1, 0], [0.99, 0.1], [0, 1]]),
    ...                              ["h1", "h2", "h3"])
    >>> [(a, b, round(cosine, 4)) for a, b, cosine in pairs.rows()]
    [('x', 'y', 0.9949)]
    """
    import polars as pl

    threshold = check_threshold(threshold)
    unit = _normalised(_check(ids, vectors, hashes, block, limit))
    names = np.asarray(ids, dtype=object)
    digests = np.asarray([h if h is not None else "" for h in hashes], dtype=object)
    cut = np.float32(threshold - TOLERANCE)
    starts = range(0, len(unit), block)
    steps, done = len(starts) * (len(starts) + 1) // 2, 0
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    kept = 0
    for start in starts:
        for other in range(start, len(unit), block):
            i, j, cos = _block_pairs(unit, start, other, block, cut)
            swap = names[i] > names[j]  # a < b from here on
            i, j = np.where(swap, j, i), np.where(swap, i, j)
            differ = (digests[i] != digests[j]) | (digests[i] == "")
            found.append((i[differ], j[differ], cos[differ]))
            kept += int(differ.sum())
            if limit is not None and kept > 2 * limit:  # prune: memory stays near `limit`
                found = [_best(*map(np.concatenate, zip(*found, strict=True)), names, limit)]
                kept = len(found[0][0])
            done += 1
            if progress is not None:
                progress("comparing vectors", done / steps)
    i, j, cos = (map(np.concatenate, zip(*found, strict=True)) if found else
                 (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)))
    i, j, cos = _best(i, j, cos, names, limit)
    return pl.DataFrame({"a": names[i].tolist(), "b": names[j].tolist(),
                         "cosine": np.clip(cos, -1.0, 1.0).astype(np.float64)},
                        schema={"a": pl.String, "b": pl.String, "cosine": pl.Float64})


def near_duplicates(store: MemoryStore, filter: Filter | None = None, *,
                    threshold: float = DEFAULT_THRESHOLD, limit: int | None = None,
                    block: int = DEFAULT_BLOCK, progress: Progress | None = None
                    ) -> pl.DataFrame:
    """Near-duplicate pairs among the store's memories under `filter` (active only unless
    it asks for other statuses): columns `a`, `b`, `cosine`, `a_content`, `b_content`, as
    `near_duplicate_pairs` finds them. Memories without a vector (pending embedding) are
    left out. The contents are as stored: escaping them is each sink's job.
    """
    import polars as pl

    check_threshold(threshold)
    if progress is not None:
        progress("loading vectors", 0.0)
    table = store.scan(["id", "content", "content_hash", "vector"], filter)
    table = table.filter(table["vector"].is_valid())
    flat = table["vector"].combine_chunks().flatten()  # fixed-size lists: n * dimension
    vectors = np.asarray(flat, dtype=np.float32).reshape(table.num_rows, store.dimension)
    pairs = near_duplicate_pairs(table["id"].to_pylist(), vectors,
                                 table["content_hash"].to_pylist(), threshold, block=block,
                                 limit=limit, progress=progress)
    content = pl.DataFrame(table.select(["id", "content"]))
    out = (pairs.join(content.rename({"id": "a", "content": "a_content"}), on="a", how="left")
           .join(content.rename({"id": "b", "content": "b_content"}), on="b", how="left")
           .sort(["cosine", "a", "b"], descending=[True, False, False]))
    if progress is not None:
        progress("done", 1.0)
    return out
