"""The map's reducer: `Umap` (umap_model.py) made with a map's parameters, fitted on the
memories' vectors, and used to place further vectors in batches."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from memory_core.projection.neighbours import ExactCosineIndex
from memory_core.projection.params import MapParams
from memory_core.projection.spectral import initial_layout
from memory_core.projection.umap_model import Umap

__all__ = ["PLACE_BATCH", "exact_neighbours", "fit", "initial_layout", "make_umap",
           "place_batches"]

#: Vectors `place_batches` hands to `transform` at a time (progress moves between them). A
#: batch of more than 10,000 new points is optimised for 30 epochs, a smaller one for 100.
PLACE_BATCH = 16_384

Advance = Callable[[int, int], None]


def make_umap(params: MapParams, n_neighbors: int) -> Umap:
    """An unfitted `Umap` with `params` (`n_neighbors` may be lowered for a tiny corpus)."""
    return Umap(n_neighbors=n_neighbors, min_dist=params.min_dist, n_components=params.dims,
                seed=params.seed)


def exact_neighbours(vectors: np.ndarray, n_neighbors: int,
                     advance: Callable[[int, int], None] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The exact cosine neighbours of every vector (indices, distances) that `fit` starts
    from; `advance(done, total)` as blocks of them are found."""
    return ExactCosineIndex(vectors).query(vectors, n_neighbors, advance)


def fit(vectors: np.ndarray, params: MapParams, n_neighbors: int,
        known: tuple[np.ndarray, np.ndarray] | None = None,
        advance: Advance | None = None) -> tuple[Umap, np.ndarray]:
    """`Umap` fitted on `vectors`, and their layout (n x dims, float64), starting from their
    exact neighbours (`known`, from `exact_neighbours`, or found here). `advance(epoch,
    epochs)` is called as the layout is optimised."""
    reducer = make_umap(params, n_neighbors)
    layout = reducer.fit_transform(vectors, known, advance)
    return reducer, np.asarray(layout, dtype=np.float64)


def place_batches(reducer: Umap, vectors: np.ndarray,
                  advance: Callable[[int], None] | None = None) -> np.ndarray:
    """`vectors` placed by the fitted `reducer` (its `transform`), `PLACE_BATCH` at a
    time, calling `advance(done)` after each batch; n x dims, float64."""
    dims = int(reducer.n_components)
    out = np.empty((len(vectors), dims), dtype=np.float64)
    for start in range(0, len(vectors), PLACE_BATCH):
        stop = min(start + PLACE_BATCH, len(vectors))
        out[start:stop] = reducer.transform(vectors[start:stop])
        if advance is not None:
            advance(stop)
    return out
