"""Which eligible memories belong together: a sparse similarity graph of embeddings, the
store's own edges and (optionally) time, cut into groups by average linkage.

Stages, each a pure function of the pool:
1. **pairs**: each memory's `k` nearest neighbours by cosine (`neighbours.py`), plus every
   pair the store's edges join directly or through one shared memory (not through a hub
   linked to more than `hub` of them, which joins everything and says nothing);
2. **similarity** of each pair: its cosine, plus `graph_weight` x how closely the graph ties
   it (1 for an edge between them, else the cosine of their neighbour sets, Salton's index:
   shared neighbours / sqrt(degree x degree)); with `half_life_days`, times 2^-(days apart /
   half-life);
3. **groups**: average linkage over those pairs (`linkage.py`) until no two groups are at
   least `threshold` alike, no group above `cap` members; in `same_project` mode only
   memories of one project (or both without one) are paired.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.sparse import coo_matrix, csr_matrix

from memory_core.consolidation.linkage import average_linkage
from memory_core.consolidation.neighbours import nearest_neighbours
from memory_core.consolidation.pool import Pool

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class GroupingParams:
    """The grouping's settings; the defaults are the rules docs/guides/curation.md
    ("Consolidation candidates") explains (round values, not fitted to the demo)."""

    k: int = 15
    threshold: float = 0.3
    cap: int = 12
    graph_weight: float = 0.5
    hub: int = 50
    half_life_days: float | None = None
    same_project: bool = True
    #: the fewest members a group needs to be a candidate
    min_members: int = 2


def _graph(pool: Pool) -> tuple[csr_matrix, np.ndarray]:
    """(incidence, members): which memories of the store (any type, the columns) each pool
    member (the rows) shares an edge with, 0/1, and each member's own column; direct links
    and shared neighbours both follow from it."""
    edges = pool.edges
    ends = pa.chunked_array([edges["source_id"], edges["target_id"]]).combine_chunks() \
        if edges.num_rows else pa.array([], pa.string())
    nodes = pc.unique(pa.concat_arrays([pa.array(pool.ids, pa.string()), ends.cast(pa.string())]))
    index = {name: at for at, name in enumerate(nodes.to_pylist())}
    src = np.array([index[s] for s in edges["source_id"].to_pylist()], dtype=np.int64)
    dst = np.array([index[t] for t in edges["target_id"].to_pylist()], dtype=np.int64)
    m = len(index)
    a = csr_matrix((np.ones(2 * len(src)), (np.concatenate([src, dst]),
                                            np.concatenate([dst, src]))), shape=(m, m))
    a.sum_duplicates()
    a.data[:] = 1.0  # an edge given twice (or both ways) links once
    members = np.array([index[i] for i in pool.ids], dtype=np.int64)
    return a[members].tocsr(), members


def _project_codes(pool: Pool) -> np.ndarray:
    """A number per row for its project (memories without one share a number)."""
    codes: dict[str | None, int] = {}
    return np.array([codes.setdefault(p, len(codes)) for p in pool.projects], dtype=np.int64)


def _neighbour_pairs(pool: Pool, params: GroupingParams, progress: Progress | None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(i, j): each row with each of its `k` nearest, searched among the rows of its project
    in `same_project` mode (a neighbour from another project would be dropped anyway, and
    smaller searches cost less: n^1.5 each in the inverted file)."""
    n = len(pool)
    if params.same_project:
        codes = _project_codes(pool)
        order = np.argsort(codes, kind="stable")
        parts = np.split(order, np.cumsum(np.bincount(codes))[:-1])
    else:
        parts = [np.arange(n)]
    done, found_i, found_j = 0, [], []
    for rows in parts:
        if len(rows) >= 2:
            def report(f: float, base: int = done, size: int = len(rows)) -> None:
                if progress is not None:
                    progress("comparing vectors", (base + f * size) / n)
            idx, _ = nearest_neighbours(pool.unit[rows], min(params.k, len(rows) - 1),
                                        progress=report)
            mine = np.repeat(np.arange(len(rows)), idx.shape[1])
            cols = idx.ravel()
            hit = cols >= 0
            found_i.append(rows[mine[hit]])
            found_j.append(rows[cols[hit]])
        done += len(rows)
    if not found_i:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(found_i), np.concatenate(found_j)


def _cosines(unit: np.ndarray, i: np.ndarray, j: np.ndarray, chunk: int = 32_768
             ) -> np.ndarray:
    """The cosine of each pair of unit rows, `chunk` pairs at a time (the rows of a million
    pairs at once would take gigabytes)."""
    out = np.empty(len(i))
    for at in range(0, len(i), chunk):
        a, b = i[at:at + chunk], j[at:at + chunk]
        out[at:at + chunk] = np.einsum("ij,ij->i", unit[a], unit[b])
    return out


def _values_at(matrix: coo_matrix, n: int, key: np.ndarray) -> np.ndarray:
    """The entries of the n x n `matrix` at the pairs `key` (row * n + col), 0 where it has
    none: a binary search over its sorted keys (scipy's fancy indexing is far slower)."""
    known = matrix.row.astype(np.int64) * n + matrix.col
    order = np.argsort(known, kind="stable")
    known, data = known[order], np.asarray(matrix.data, dtype=np.float64)[order]
    if not len(known):
        return np.zeros(len(key))
    at = np.minimum(np.searchsorted(known, key), len(known) - 1)
    return np.where(known[at] == key, data[at], 0.0)


def pair_graph(pool: Pool, params: GroupingParams, *, progress: Progress | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, similarity) of the candidate pairs of the pool (row indices, i < j)."""
    n = len(pool)
    if n < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    i, j = _neighbour_pairs(pool, params, progress)
    incidence, members = _graph(pool)
    direct = incidence[:, members]  # pool x pool: an edge between two members
    degree = np.asarray(incidence.sum(axis=1)).ravel()
    node_degree = np.asarray(incidence.sum(axis=0)).ravel()
    through = incidence.copy()
    # a hub (a topic, a busy session summary) joins everything: its links say nothing
    through.data[np.isin(through.indices, np.flatnonzero(node_degree > params.hub))] = 0
    through.eliminate_zeros()
    shared = (through @ through.T).tocoo()  # pool x pool: shared neighbours
    linked = direct.tocoo()
    i = np.concatenate([i, linked.row, shared.row])
    j = np.concatenate([j, linked.col, shared.col])
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    key = np.sort(lo[lo != hi] * n + hi[lo != hi])
    key = key[np.concatenate(([True], key[1:] != key[:-1]))] if len(key) else key
    i, j = key // n, key % n
    if params.same_project:
        project = _project_codes(pool)
        keep = project[i] == project[j]
        i, j = i[keep], j[keep]
    if len(i) == 0:  # scipy's fancy indexing of nothing gives an object array
        return i, j, np.zeros(0)
    cosine = _cosines(pool.unit, i, j)
    key = i * n + j
    graph = _values_at(linked, n, key)
    common = _values_at(shared, n, key)
    salton = np.divide(common, np.sqrt(degree[i] * degree[j]),
                       out=np.zeros(len(i)), where=degree[i] * degree[j] > 0)
    similarity = cosine + params.graph_weight * np.maximum(graph, np.minimum(salton, 1.0))
    if params.half_life_days is not None:
        seconds = np.array([t.timestamp() for t in pool.created_at])
        days = np.abs(seconds[i] - seconds[j]) / 86_400
        similarity = similarity * np.exp2(-days / params.half_life_days)
    return i, j, similarity


def group(pool: Pool, params: GroupingParams | None = None, *,
          progress: Progress | None = None) -> list[np.ndarray]:
    """The groups of the pool (arrays of row indices, each of at least `min_members`),
    in order of their first row."""
    params = params or GroupingParams()
    i, j, similarity = pair_graph(pool, params, progress=progress)
    if progress is not None:
        progress("grouping", 0.0)
    labels = average_linkage(len(pool), i, j, similarity, threshold=params.threshold,
                             cap=params.cap)
    order = np.argsort(labels, kind="stable")
    parts = np.split(order, np.cumsum(np.bincount(labels))[:-1]) if len(labels) else []
    return [p for p in parts if len(p) >= params.min_members]
