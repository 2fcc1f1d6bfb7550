"""Exact cosine nearest neighbours by blocked matrix products: what UMAP is fitted on (up
to `EXACT_LIMIT` points) and what its `transform` searches (`ExactCosineIndex`).

Why not UMAP's own: below 4,096 points UMAP computes every distance through scikit-learn
with a Python-level metric, one call per pair (28 of the 32 s a 2,806-memory map took
here); from 4,096 points it runs pynndescent, whose index then builds a search graph and
compiles a search function the first time it is queried or pickled (ten minutes and a
190 MB pickle for 50,000 points on the two busy cores here). A product of unit vectors is
one BLAS call per block: 40 s for the 15 neighbours of each of 50,000 384-d vectors on two
cores against pynndescent's 65 s (which one seeded UMAP runs on one core), with exact
neighbours, so fitting and placing are repeatable. Its cost grows with n squared, so
beyond `EXACT_LIMIT` UMAP's pynndescent builds the neighbour graph (`params.sample` is the
better answer there).
"""

from __future__ import annotations

import numpy as np

#: Fitted points up to which the neighbour graph is computed exactly (the crossover with
#: pynndescent on two cores is about here).
EXACT_LIMIT = 100_000
#: Cells of the query x fitted-vectors block computed at once (32 MB of float32, and the
#: int64 positions argpartition returns).
BLOCK_CELLS = 1 << 23


def _unit(vectors: np.ndarray) -> np.ndarray:
    """`vectors` scaled to unit length (all-zero rows stay zero: cosine 0 with all)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


class ExactCosineIndex:
    """Nearest fitted vectors by cosine distance, searched exactly. It has the part of
    pynndescent's `NNDescent` that UMAP's `transform` uses (`query`, `_angular_trees`),
    so it can stand in for it."""

    #: UMAP reads this to pick the search's epsilon, which an exact search ignores.
    _angular_trees = True

    def __init__(self, data: np.ndarray) -> None:
        self.data = np.asarray(data, dtype=np.float32)
        norms = np.linalg.norm(self.data, axis=1).astype(np.float32)
        # 1 / norm, and 0 for an all-zero row: its cosine with anything is 0
        self.inverse_norms = np.divide(1.0, norms, out=np.zeros_like(norms),
                                       where=norms > 0)

    def query(self, queries: np.ndarray, k: int, epsilon: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
        """(indices, cosine distances) of the `k` fitted vectors nearest each query,
        nearest first (ties by position): two n_queries x k arrays (int32, float32)."""
        queries = _unit(np.asarray(queries, dtype=np.float32))
        n, k = len(self.data), min(k, len(self.data))
        indices = np.empty((len(queries), k), dtype=np.int32)
        dists = np.empty((len(queries), k), dtype=np.float32)
        block = max(1, BLOCK_CELLS // max(n, 1))
        for start in range(0, len(queries), block):
            far = queries[start:start + block] @ self.data.T
            far *= self.inverse_norms  # cosine similarity
            np.subtract(1.0, far, out=far)  # cosine distance
            top = (np.argpartition(far, k - 1, axis=1)[:, :k] if k < n
                   else np.broadcast_to(np.arange(n), far.shape))
            near = np.take_along_axis(far, top, axis=1)
            order = np.lexsort((top, near), axis=1)
            stop = start + len(far)
            indices[start:stop] = np.take_along_axis(top, order, axis=1)
            dists[start:stop] = np.maximum(np.take_along_axis(near, order, axis=1), 0.0)
        return indices, dists
