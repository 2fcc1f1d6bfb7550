"""UMAP itself: imported on first use (numba compiles it then), fitted with a map's
parameters, and used to place further vectors in batches."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from memory_core.projection.params import MapParams

#: Vectors `place_batches` hands to `transform` at a time (progress moves between them).
PLACE_BATCH = 4096
#: Points of the warm-up fit that compiles UMAP's numba code before the real fit.
WARM_UP_POINTS = 64
#: Cells of the query x fitted-vectors block an exact search computes at once (64 MB).
EXACT_BLOCK_CELLS = 1 << 24

_warm = threading.Event()
_warm_lock = threading.Lock()


def is_warm() -> bool:
    """Whether this process has fitted UMAP already (its numba code is compiled)."""
    return _warm.is_set()


def initial_layout(points: int, dims: int) -> str:
    """How UMAP starts the layout of `points` points: "spectral" (its default, the
    eigenvectors of the neighbour graph), or "random" (seeded) when there are too few
    points for dims + 1 eigenvectors (scipy needs more points than eigenvectors)."""
    return "spectral" if points >= dims + 2 else "random"


def make_umap(params: MapParams, n_neighbors: int, points: int) -> Any:
    """An unfitted `umap.UMAP` with `params` for `points` points (cosine; `n_neighbors` may
    be lowered for a tiny corpus). `n_jobs=1` because a seeded UMAP runs on one thread
    anyway (it warns otherwise); `transform_seed` is the seed too, so placing is as
    repeatable as fitting."""
    import umap

    return umap.UMAP(metric="cosine", n_neighbors=n_neighbors, min_dist=params.min_dist,
                     random_state=params.seed, transform_seed=params.seed,
                     n_components=params.dims, init=initial_layout(points, params.dims),
                     n_jobs=1, verbose=False)


def warm_up(params: MapParams) -> None:
    """Import UMAP and fit it once on a few seeded random points, so that numba compiles
    its code here (about 20 s on first use in a process) and not in the middle of the real
    fit. Does nothing once this process has fitted UMAP."""
    with _warm_lock:
        if _warm.is_set():
            return
        points = np.random.default_rng(0).standard_normal((WARM_UP_POINTS, 8))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            make_umap(params, 5, WARM_UP_POINTS).fit(points.astype(np.float32))
        _warm.set()


class ExactCosineIndex:
    """The nearest neighbours UMAP's `transform` asks for, found exactly: cosine distances
    by a matrix product with the fitted vectors, a block of queries at a time.

    It stands in for the pynndescent index UMAP keeps after fitting 4,096 or more points
    (below that UMAP computes exact distances itself). That index builds a search graph and
    compiles a search function the first time it is queried or pickled: measured here, ten
    minutes for 50,000 points on two busy cores, and a 190 MB pickle. A product with the
    fitted vectors costs milliseconds per query and nothing to store beyond the vectors
    UMAP keeps anyway, and its neighbours are exact, so placing is repeatable.
    """

    #: UMAP reads this to pick the search's epsilon, which an exact search ignores.
    _angular_trees = True

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.norms = np.linalg.norm(data, axis=1).astype(np.float32)

    def query(self, queries: np.ndarray, k: int, epsilon: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
        """(indices, cosine distances) of the `k` fitted vectors nearest each query,
        nearest first: two n_queries x k arrays (int32, float32)."""
        queries = np.asarray(queries, dtype=np.float32)
        n, k = len(self.data), min(k, len(self.data))
        indices = np.empty((len(queries), k), dtype=np.int32)
        dists = np.empty((len(queries), k), dtype=np.float32)
        block = max(1, EXACT_BLOCK_CELLS // max(n, 1))
        for start in range(0, len(queries), block):
            part = queries[start:start + block]
            norms = np.linalg.norm(part, axis=1)[:, None] * self.norms[None, :]
            sims = np.divide(part @ self.data.T, norms, out=np.zeros((len(part), n),
                             dtype=np.float32), where=norms > 0)
            far = 1.0 - sims
            top = np.argpartition(far, k - 1, axis=1)[:, :k] if k < n else np.tile(
                np.arange(n), (len(part), 1))
            near = np.take_along_axis(far, top, axis=1)
            order = np.argsort(near, axis=1, kind="stable")
            indices[start:start + block] = np.take_along_axis(top, order, axis=1)
            dists[start:start + block] = np.maximum(np.take_along_axis(near, order, axis=1),
                                                    0.0)
        return indices, dists


def fit(vectors: np.ndarray, params: MapParams, n_neighbors: int) -> tuple[Any, np.ndarray]:
    """UMAP fitted on `vectors`, and their layout (n x dims, float64). Its pynndescent
    index, if it built one, is swapped for an `ExactCosineIndex`."""
    reducer = make_umap(params, n_neighbors, len(vectors))
    with warnings.catch_warnings():
        # UMAP warns about its own choices (spectral init on tiny graphs, ...): noise here
        warnings.simplefilter("ignore")
        layout = reducer.fit_transform(vectors)
    if getattr(reducer, "_knn_search_index", None) is not None:
        reducer._knn_search_index = ExactCosineIndex(reducer._raw_data)
    _warm.set()
    return reducer, np.asarray(layout, dtype=np.float64)


def place_batches(reducer: Any, vectors: np.ndarray,
                  advance: Callable[[int], None] | None = None) -> np.ndarray:
    """`vectors` placed by the fitted `reducer` (its `transform`), `PLACE_BATCH` at a
    time, calling `advance(done)` after each batch; n x dims, float64."""
    dims = int(reducer.n_components)
    out = np.empty((len(vectors), dims), dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in range(0, len(vectors), PLACE_BATCH):
            stop = min(start + PLACE_BATCH, len(vectors))
            out[start:stop] = reducer.transform(vectors[start:stop])
            if advance is not None:
                advance(stop)
    return out
