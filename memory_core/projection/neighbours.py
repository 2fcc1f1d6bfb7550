"""Exact cosine nearest neighbours by blocked matrix products: what the map's UMAP is fitted
from and what its `transform` searches (`ExactCosineIndex`).

A product of unit vectors is one BLAS call per block, on every core, and exact, so fitting
and placing are repeatable (umap-learn's own search, pynndescent, is approximate, seeded
on one thread). Its cost grows with n squared, which is why a map of more than 50,000
memories is fitted on a sample (`layout.AUTO_SAMPLE_ABOVE`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Cells of the query x fitted-vectors block computed at once (32 MB of float32, and the
#: int64 positions argpartition returns).
BLOCK_CELLS = 1 << 23


def _unit(vectors: np.ndarray) -> np.ndarray:
    """`vectors` scaled to unit length (all-zero rows stay zero: cosine 0 with all)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


class ExactCosineIndex:
    """Nearest fitted vectors by cosine distance, searched exactly. It has the part of
    pynndescent's `NNDescent` that umap-learn's `transform` uses (`query` with `epsilon`,
    `_angular_trees`), so a fitted UMAP searches it for new vectors' neighbours."""

    #: umap-learn reads this to choose `epsilon`, which an exact search ignores.
    _angular_trees = True

    def __init__(self, data: np.ndarray) -> None:
        self.data = np.asarray(data, dtype=np.float32)
        norms = np.linalg.norm(self.data, axis=1).astype(np.float32)
        # 1 / norm, and 0 for an all-zero row: its cosine with anything is 0
        self.inverse_norms = np.divide(1.0, norms, out=np.zeros_like(norms),
                                       where=norms > 0)

    def query(self, queries: np.ndarray, k: int,
              advance: Callable[[int, int], None] | None = None, *, epsilon: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
        """(indices, cosine distances) of the `k` fitted vectors nearest each query,
        nearest first (ties by position): two n_queries x k arrays (int32, float32).
        `advance(done, queries)` is called after each block of queries; `epsilon` (how
        far an approximate search may look past the best found) is accepted and unused."""
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
            if advance is not None:
                advance(stop, len(queries))
        return indices, dists
