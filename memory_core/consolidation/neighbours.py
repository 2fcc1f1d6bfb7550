"""The `k` nearest neighbours of every unit vector by cosine: exact blocked products for a
few thousand vectors, an inverted file (k-means cells, the nearest `PROBES` searched) above.

Exact search costs n^2 x d: 7.7e12 multiply-adds at 100,000 384-d vectors, two minutes of
BLAS on 2 cores. The inverted file (Jegou, Douze and Schmid, "Product quantization for
nearest neighbor search", IEEE TPAMI 2011, section IV-A, without the quantisation) puts each
vector in the cell of its nearest of about sqrt(n) k-means centres and searches each query
in its `PROBES` nearest cells only: about PROBES x n^2 / sqrt(n) x d, a few seconds at 100,000.
A neighbour in a cell that is not probed is missed; consolidation only needs close ones,
which share a cell or a neighbouring one. Memory stays at one cell's block of cosines.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from memory_core.projection.cells import kmeans

#: Up to this many vectors, every pair is compared (a tenth of a second of BLAS).
EXACT_UP_TO = 4_000
#: Cells per square root of n, and the cells each query searches. On the demo's MiniLM
#: vectors forced through the inverted file (35 cells), 8 probes found 91% of the true
#: 15 nearest with cosine >= 0.5 and 95% of those >= 0.6; 4 probes, 82% and 89%.
CELLS_PER_ROOT = 1
PROBES = 8
#: Cosines computed at once (64 MB of float32).
BLOCK_CELLS = 1 << 24

Progress = Callable[[float], None]


def _top(sims: np.ndarray, cols: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The `k` largest of each row of `sims` (columns named by `cols`), unordered."""
    k = min(k, sims.shape[1])
    # the k largest are the last k after partitioning at m - k: no negated copy, and
    # numpy's introselect is several times faster this way round
    at = np.argpartition(sims, sims.shape[1] - k, axis=1)[:, sims.shape[1] - k:]
    return np.take_along_axis(sims, at, axis=1), cols[at]


def _merge(best_s: np.ndarray, best_i: np.ndarray, rows: np.ndarray, sims: np.ndarray,
           cols: np.ndarray, k: int) -> None:
    """Fold candidates (`sims`, their column ids `cols`) into the running top-k of `rows`."""
    s = np.concatenate([best_s[rows], sims], axis=1)
    i = np.concatenate([best_i[rows], cols], axis=1)
    at = np.argpartition(s, s.shape[1] - k, axis=1)[:, s.shape[1] - k:]
    best_s[rows] = np.take_along_axis(s, at, axis=1)
    best_i[rows] = np.take_along_axis(i, at, axis=1)


def _search(unit: np.ndarray, queries: np.ndarray, members: np.ndarray, k: int,
            best_s: np.ndarray, best_i: np.ndarray) -> None:
    """Compare `queries` (row indices) with `members`, a block at a time; a row is never
    its own neighbour."""
    step = max(1, BLOCK_CELLS // max(1, len(members)))
    for at in range(0, len(queries), step):
        rows = queries[at:at + step]
        sims = unit[rows] @ unit[members].T
        at_self = np.searchsorted(members, rows)  # members are sorted
        mine = at_self < len(members)
        mine[mine] = members[at_self[mine]] == rows[mine]
        sims[np.flatnonzero(mine), at_self[mine]] = -np.inf  # a row is not its own neighbour
        s, i = _top(sims, members, k)
        i = np.where(np.isneginf(s), -1, i)  # the row itself, taken when members are few
        if s.shape[1] < k:  # fewer members than k: pad with nothing
            pad = k - s.shape[1]
            s = np.pad(s, ((0, 0), (0, pad)), constant_values=-np.inf)
            i = np.pad(i, ((0, 0), (0, pad)), constant_values=-1)
        _merge(best_s, best_i, rows, s, i, k)


def nearest_neighbours(unit: np.ndarray, k: int, *, progress: Progress | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(indices, cosines), each n x k: every row's `k` nearest other rows of `unit` (unit
    float32 vectors), nearest first; -1 and -inf where fewer than `k` were found.

    >>> unit = np.array([[1, 0], [0.8, 0.6], [0, 1]], dtype=np.float32)
    >>> idx, cos = nearest_neighbours(unit, 1)
    >>> idx[:, 0].tolist(), [round(float(c), 2) for c in cos[:, 0]]
    ([1, 0, 1], [0.8, 0.8, 0.6])
    """
    n = len(unit)
    best_s = np.full((n, k), -np.inf, dtype=np.float32)
    best_i = np.full((n, k), -1, dtype=np.int64)
    if n < 2 or k < 1:
        return best_i, best_s
    everything = np.arange(n)
    if n <= EXACT_UP_TO:
        _search(unit, everything, everything, k, best_s, best_i)
    else:
        centres = kmeans(unit, max(2, round(CELLS_PER_ROOT * math.sqrt(n))))
        cells = len(centres)
        probes = min(PROBES, cells)
        near = np.concatenate([np.argpartition(unit[s:s + 8192] @ centres.T, cells - probes,
                                               axis=1)[:, cells - probes:]
                               for s in range(0, n, 8192)])
        home = _home(unit, centres)
        members_of = _groups(home, cells)
        queries_of = _groups(near.ravel(), cells, owners=np.repeat(everything, probes))
        for c in range(cells):
            members, queries = members_of[c], queries_of[c]
            if len(members) and len(queries):
                _search(unit, queries, members, k, best_s, best_i)
            if progress is not None:
                progress((c + 1) / cells)
    order = np.argsort(-best_s, axis=1, kind="stable")
    return np.take_along_axis(best_i, order, axis=1), np.take_along_axis(best_s, order, axis=1)


def _groups(cell: np.ndarray, cells: int, owners: np.ndarray | None = None
            ) -> list[np.ndarray]:
    """For each cell, the rows (or their `owners`) whose entry of `cell` is it."""
    order = np.argsort(cell, kind="stable")
    named = order if owners is None else owners[order]
    return np.split(named, np.cumsum(np.bincount(cell, minlength=cells))[:-1])


def _home(unit: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Each row's nearest centre (its cell in the inverted file)."""
    return np.concatenate([np.argmax(unit[s:s + 8192] @ centres.T, axis=1)
                           for s in range(0, len(unit), 8192)])
