"""Near-duplicates: pairs of memories whose vectors have cosine >= a threshold but whose
contents differ (exact content-hash duplicates are dedup's job, not this).

`near_duplicate_pairs` is the pure core. The vectors are normalised to float32 and compared
by blocked matrix products (`block` rows against `block` rows, only the upper triangle of
a diagonal block), so memory stays bounded by `block`^2 cosines plus the pairs found, and
no pair is visited by a Python loop. Only groups of rows that can hold a pair are compared
(`cells.py`: k-means cells and the triangle inequality skip the rest, exactly). The pairs
the products find near the threshold are then measured again in float64, so a cosine, the
order of the pairs and a pair at the threshold never depend on the block size, the cells or
the BLAS. `near_duplicates` runs it over a store's embedded memories under a filter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from memory_core.model.errors import InvalidMapParamsError
from memory_core.model.untrusted import shown
from memory_core.projection.cells import Cell, cells_to_compare

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore

#: `progress(stage, fraction)`, fraction in [0, 1]; the stages of `project` are worded alike.
Progress = Callable[[str, float], None]

DEFAULT_THRESHOLD = 0.95
DEFAULT_BLOCK = 2048
#: The float32 product of two unit vectors is within this of their float64 cosine (384-d
#: sums err by ~1e-7; this is the margin): candidates are kept this far below the threshold.
SCREEN = 1e-5
#: A float64 cosine this close below the threshold is at it (the division's rounding).
TOLERANCE = 1e-9
#: Rows upcast to float64 at a time (memory: CHUNK x dimension x 8 bytes).
CHUNK = 8192


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
    matrix = np.asarray(vectors)  # float32 from a store, kept: float64 only in chunks
    if not np.issubdtype(matrix.dtype, np.floating):
        matrix = matrix.astype(np.float64)
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


def _norms(matrix: np.ndarray) -> np.ndarray:
    """Each row's float64 length, `CHUNK` rows at a time."""
    return np.concatenate([np.linalg.norm(matrix[s:s + CHUNK].astype(np.float64), axis=1)
                           for s in range(0, len(matrix), CHUNK)] or [np.zeros(0)])


def _cosines(matrix: np.ndarray, norms: np.ndarray, i: np.ndarray, j: np.ndarray
             ) -> np.ndarray:
    """The float64 cosine of each pair (i, j), `CHUNK` pairs at a time; 0 for a zero
    vector."""
    out = np.zeros(len(i))
    for s in range(0, len(i), CHUNK):
        a, b = i[s:s + CHUNK], j[s:s + CHUNK]
        dots = np.einsum("ij,ij->i", matrix[a].astype(np.float64),
                         matrix[b].astype(np.float64))
        scale = norms[a] * norms[b]
        out[s:s + CHUNK] = np.divide(dots, scale, out=np.zeros(len(a)), where=scale > 0)
    return np.clip(out, -1.0, 1.0)


def _unit32(matrix: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """The rows of `matrix` (none of them zero) divided by their `norms`, float32."""
    return (np.asarray(matrix, dtype=np.float32) / norms[:, None]).astype(np.float32)


def _blocks(cell: Cell, block: int) -> Iterator[tuple[np.ndarray, np.ndarray, bool]]:
    """(rows, cols, diagonal) blocks of at most `block` x `block` covering `cell`'s pairs
    once; `diagonal`: rows and cols are the same rows (take the upper triangle)."""
    for r in range(0, len(cell.rows), block):
        for c in range(r if cell.same else 0, len(cell.cols), block):
            yield cell.rows[r:r + block], cell.cols[c:c + block], cell.same and r == c


def _candidates(unit: np.ndarray, rows: np.ndarray, cols: np.ndarray, diagonal: bool,
                cut: np.float32) -> tuple[np.ndarray, np.ndarray]:
    """(i, j): the pairs of one block whose float32 cosine is >= `cut`."""
    cosines = unit[rows] @ unit[cols].T
    if diagonal:
        cosines = np.triu(cosines, k=1)  # each pair once, never a row with itself
    i, j = np.nonzero(cosines >= cut)
    return rows[i], cols[j]


def _work(cell: Cell) -> int:
    return len(cell.rows) * len(cell.cols) // (2 if cell.same else 1)


Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]


def _joined(parts: list[Pairs]) -> Pairs:
    """The (i, j, cosine) arrays of `parts` end to end."""
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def _best(i: np.ndarray, j: np.ndarray, cos: np.ndarray, ids: np.ndarray, limit: int | None
          ) -> Pairs:
    """The pairs in output order (cosine descending, then ids), the first `limit`."""
    order = np.lexsort((ids[j], ids[i], -cos))[:limit]
    return i[order], j[order], cos[order]


def near_duplicate_pairs(ids: Sequence[str], vectors: np.ndarray,
                         hashes: Sequence[str | None], threshold: float = DEFAULT_THRESHOLD,
                         *, block: int = DEFAULT_BLOCK, limit: int | None = None,
                         progress: Progress | None = None) -> pl.DataFrame:
    """The pairs `a`, `b` (ids, a < b) whose vectors' cosine is >= `threshold` (in
    float64, within `TOLERANCE`) and whose content hashes differ, with their `cosine`,
    sorted by cosine descending (then a, b). `limit` keeps only the closest that many (and
    memory to about `limit` pairs). A zero vector is near nothing.

    >>> pairs = near_duplicate_pairs(["x", "y", "z"], np.array([[1, 0], [0.99, 0.1], [0, 1]]),
    ...                              ["h1", "h2", "h3"])
    >>> [(a, b, round(cosine, 4)) for a, b, cosine in pairs.rows()]
    [('x', 'y', 0.9949)]
    """
    import polars as pl

    threshold = check_threshold(threshold)
    matrix = _check(ids, vectors, hashes, block, limit)
    norms = _norms(matrix)
    live = np.flatnonzero(norms > 0)  # a zero vector is near nothing
    unit = _unit32(matrix[live], norms[live])
    names = np.asarray(ids, dtype=object)
    digests = np.asarray([h if h is not None else "" for h in hashes], dtype=object)
    cut = np.float32(max(threshold - SCREEN, threshold / 2))
    if progress is not None:
        progress("grouping vectors", 0.0)
    cells = list(cells_to_compare(unit, threshold, block))
    total, done = max(1, sum(_work(c) for c in cells)), 0
    found: list[Pairs] = []
    kept = 0
    for cell in cells:
        for rows, cols, diagonal in _blocks(cell, block):
            i, j = _candidates(unit, rows, cols, diagonal, cut)
            i, j = live[i], live[j]
            swap = names[i] > names[j]  # a < b from here on
            i, j = np.where(swap, j, i), np.where(swap, i, j)
            cos = _cosines(matrix, norms, i, j)
            keep = (cos >= threshold - TOLERANCE) & (
                (digests[i] != digests[j]) | (digests[i] == ""))
            found.append((i[keep], j[keep], cos[keep]))
            kept += int(keep.sum())
            if limit is not None and kept > 2 * limit:  # prune: memory stays near `limit`
                found = [_best(*_joined(found), names, limit)]
                kept = len(found[0][0])
        done += _work(cell)
        if progress is not None:
            progress("comparing vectors", done / total)
    i, j, cos = _best(*_joined(found), names, limit)
    return pl.DataFrame({"a": names[i].tolist(), "b": names[j].tolist(), "cosine": cos},
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
