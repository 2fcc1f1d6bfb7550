"""Average-linkage agglomerative clustering of a sparse similarity graph, merged by rounds of
reciprocal nearest neighbours, stopped at a threshold and a size cap.

Average linkage is reducible: merging two clusters never brings a third closer than it was
to either. So every pair of clusters that are each other's most similar neighbour can merge
in the same round, and the rounds end in the same clusters as merging one pair at a time
(Sumengen et al., "Scaling Hierarchical Agglomerative Clustering to Billion-sized Datasets",
2021, "RAC"). Each round is a few sparse-matrix products, so a million edges take seconds,
where one heap update per merge in Python would take minutes.

The similarity of two clusters is the sum of their members' pair similarities divided by the
product of their sizes: a pair the graph does not hold counts as 0 (a pair of neighbours
that was never found is not evidence). Merging stops when no two clusters are at least
`threshold` alike; a merge that would make a cluster larger than `cap` is not made (the
cap makes the rounds differ slightly from one-at-a-time merging, and keeps groups a reader
can review).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix


def _best(link: csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Each row's most similar column (-1 for none) and that similarity; ties go to the
    lowest column, so the result never depends on the storage order. Per-row reductions of
    the CSR arrays: no sort."""
    rows = link.shape[0]
    best = np.full(rows, -1, dtype=np.int64)
    value = np.full(rows, -np.inf)
    if link.nnz == 0:
        return best, value
    link.sum_duplicates()  # canonical: one entry per (row, column)
    counts = np.diff(link.indptr)
    filled = np.flatnonzero(counts)
    starts = link.indptr[filled]
    top = np.maximum.reduceat(link.data, starts)
    at_top = link.data == np.repeat(top, counts[filled])
    columns = np.where(at_top, link.indices.astype(np.int64), np.iinfo(np.int64).max)
    best[filled] = np.minimum.reduceat(columns, starts)
    value[filled] = top
    return best, value


def average_linkage(n: int, i: np.ndarray, j: np.ndarray, similarity: np.ndarray, *,
                    threshold: float, cap: int) -> np.ndarray:
    """A cluster label for each of `n` items, from the undirected pairs (`i`, `j`) and their
    `similarity` (a pair given twice counts once, with the larger value; negative values
    count as 0). Labels are 0..c-1 in order of each cluster's first item.

    >>> average_linkage(4, np.array([0, 2]), np.array([1, 3]), np.array([0.9, 0.2]),
    ...                 threshold=0.5, cap=10).tolist()
    [0, 0, 1, 2]
    """
    lo, hi = np.minimum(i, j).astype(np.int64), np.maximum(i, j).astype(np.int64)
    keep = lo != hi
    lo, hi = lo[keep], hi[keep]
    value = np.maximum(np.asarray(similarity, dtype=np.float64)[keep], 0.0)
    key = lo * n + hi
    order = np.lexsort((-value, key))  # per pair, the largest value first
    first = np.ones(len(order), dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    chosen = order[first]
    pairs = csr_matrix((value[chosen], (lo[chosen], hi[chosen])), shape=(n, n))
    sums = (pairs + pairs.T).tocsr()  # cluster x cluster sums of pair similarities
    label = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    while True:
        coo = sums.tocoo()
        link = coo.data / (size[coo.row] * size[coo.col])
        ok = (coo.row != coo.col) & (link >= threshold) & (size[coo.row] + size[coo.col] <= cap)
        if not ok.any():
            break  # (the best pair left is always mutual, so every round merges one)
        clusters = len(size)
        best, _ = _best(csr_matrix((link[ok], (coo.row[ok], coo.col[ok])),
                                   shape=(clusters, clusters)))
        mine = np.arange(clusters)
        mutual = (best >= 0) & (best[np.maximum(best, 0)] == mine)
        if not mutual.any():  # cannot happen (see above); never loop on a surprise
            break
        # each reciprocal pair merges into its lower cluster; the others stay as they are
        target = np.where(mutual & (best < mine), best, mine)
        new, count = _dense(target, clusters)
        move = csr_matrix((np.ones(clusters), (mine, new)), shape=(clusters, count))
        sums = (move.T @ sums @ move).tocsr()
        size = np.bincount(new, weights=size, minlength=count).astype(np.int64)
        label = new[label]
    # relabel by first item, so labels do not depend on the rounds
    first = np.full(len(size), n, dtype=np.int64)
    np.minimum.at(first, label, np.arange(n))
    rank = np.empty(len(size), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(size))
    return rank[label]


def _dense(values: np.ndarray, bound: int) -> tuple[np.ndarray, int]:
    """`values` (in [0, bound)) renumbered 0..c-1 in their order, and c (np.unique's
    inverse without its sort or hash: this numpy's hashing unique takes seconds on
    millions of values)."""
    present = np.zeros(bound, dtype=bool)
    present[values] = True
    number = np.cumsum(present) - 1
    return number[values], int(present.sum())
