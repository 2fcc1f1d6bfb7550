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

_warm = threading.Event()
_warm_lock = threading.Lock()


def is_warm() -> bool:
    """Whether this process has fitted UMAP already (its numba code is compiled)."""
    return _warm.is_set()


def make_umap(params: MapParams, n_neighbors: int) -> Any:
    """An unfitted `umap.UMAP` with `params` (cosine; `n_neighbors` may be lowered for a
    tiny corpus). `n_jobs=1` because a seeded UMAP runs on one thread anyway (it warns
    otherwise); `transform_seed` is the seed too, so placing is as repeatable as fitting."""
    import umap

    return umap.UMAP(metric="cosine", n_neighbors=n_neighbors, min_dist=params.min_dist,
                     random_state=params.seed, transform_seed=params.seed,
                     n_components=params.dims, n_jobs=1, verbose=False)


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
            make_umap(params, 5).fit(points.astype(np.float32))
        _warm.set()


def fit(vectors: np.ndarray, params: MapParams, n_neighbors: int) -> tuple[Any, np.ndarray]:
    """UMAP fitted on `vectors`, and their layout (n x dims, float64)."""
    reducer = make_umap(params, n_neighbors)
    with warnings.catch_warnings():
        # UMAP warns about its own choices (spectral init on tiny graphs, ...): noise here
        warnings.simplefilter("ignore")
        layout = reducer.fit_transform(vectors)
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
