"""The map's reducer: umap-learn's `UMAP` (cosine) made with a map's parameters, fitted
from the exact neighbours memlens finds (`precomputed_knn`, so umap-learn does not search
them again), and used to place further vectors in batches.

The fitted model keeps the `ExactCosineIndex` as its search index, so its `transform`
finds a new vector's neighbours exactly too, and a seed gives the same layout and the same
placements every time (a seeded UMAP runs on one thread).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from memory_core.projection.neighbours import ExactCosineIndex
from memory_core.projection.params import MapParams

__all__ = ["PLACE_BATCH", "exact_neighbours", "fit", "fit_loaded", "initial_layout",
           "make_umap", "place_batches"]

#: Vectors `place_batches` hands to `transform` at a time (progress moves between them).
#: umap-learn optimises a batch of more than 10,000 new points for 30 epochs, a smaller
#: one for 100.
PLACE_BATCH = 16_384

Advance = Callable[[int, int], None]


def initial_layout(points: int, dims: int) -> str:
    """How the layout of `points` points starts: "spectral" (umap-learn's default), or
    "random" (seeded) when there are too few points for dims + 1 eigenvectors."""
    return "spectral" if points >= dims + 2 else "random"


class _Epochs:
    """A file for umap-learn's epoch progress bar (tqdm) that hands `advance(epoch,
    epochs)` the numbers its `bar_format` writes."""

    FORMAT = "{n}/{total}\n"
    _NUMBERS = re.compile(r"(\d+)/(\d+)")

    def __init__(self, advance: Advance) -> None:
        self.advance = advance

    def write(self, text: str) -> None:
        for done, total in self._NUMBERS.findall(text):
            self.advance(int(done), int(total))

    def flush(self) -> None:
        """Nothing is buffered."""


def make_umap(params: MapParams, n_neighbors: int, points: int,
              known: tuple[np.ndarray, np.ndarray, ExactCosineIndex],
              advance: Advance | None = None) -> Any:
    """An unfitted `umap.UMAP` with `params` for `points` points, given their neighbours
    (`known`: indices, distances, the index that found them). `transform_seed` is the
    seed too, so placing is as repeatable as fitting."""
    from memory_core.projection.engine import import_umap

    umap = import_umap()
    progress = ({"disable": False, "file": _Epochs(advance), "bar_format": _Epochs.FORMAT,
                 "mininterval": 0.5} if advance is not None else {"disable": True})
    return umap.UMAP(metric="cosine", n_neighbors=n_neighbors, min_dist=params.min_dist,
                     random_state=params.seed, transform_seed=params.seed,
                     n_components=params.dims, init=initial_layout(points, params.dims),
                     precomputed_knn=known, n_jobs=1, verbose=False, tqdm_kwds=progress)


def exact_neighbours(vectors: np.ndarray, n_neighbors: int,
                     advance: Callable[[int, int], None] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The exact cosine neighbours of every vector (indices, distances) that `fit` starts
    from; `advance(done, total)` as blocks of them are found."""
    return ExactCosineIndex(vectors).query(vectors, n_neighbors, advance)


def fit(vectors: np.ndarray, params: MapParams, n_neighbors: int,
        known: tuple[np.ndarray, np.ndarray] | None = None,
        advance: Advance | None = None) -> tuple[Any, np.ndarray]:
    """`umap.UMAP` fitted on `vectors`, and their layout (n x dims, float64), from their
    exact neighbours (`known`, from `exact_neighbours`, or found here). `advance(epoch,
    epochs)` is called as the layout is optimised. The engine is compiled first if this
    machine has not compiled it yet (`engine.prepare`)."""
    from memory_core.projection.engine import prepare

    prepare(compile_kernels)
    return fit_loaded(vectors, params, n_neighbors, known, advance)


def fit_loaded(vectors: np.ndarray, params: MapParams, n_neighbors: int,
               known: tuple[np.ndarray, np.ndarray] | None = None,
               advance: Advance | None = None) -> tuple[Any, np.ndarray]:
    """`fit` without `engine.prepare` (which calls it to compile the engine)."""
    index = ExactCosineIndex(vectors)
    indices, distances = known if known is not None else index.query(vectors, n_neighbors)
    # umap-learn marks disconnected neighbours in these arrays: give it its own copies
    model = make_umap(params, n_neighbors, len(vectors),
                      (indices.copy(), distances.copy(), index), advance)
    with warnings.catch_warnings():
        # umap-learn warns about its own choices (one thread for a seeded fit, a search
        # index that is not pynndescent's, spectral starts of tiny graphs): noise here
        warnings.simplefilter("ignore")
        layout = model.fit_transform(vectors)
    model.tqdm_kwds = {"disable": True}  # the progress file is not the fitted model's
    index.data = model._raw_data  # one array for both, so the pickle holds it once
    return model, np.asarray(layout, dtype=np.float64)


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


def compile_kernels() -> None:
    """Fit umap-learn once on a few seeded points, given their exact neighbours, and place
    a few more: every kernel a map and a query placement run gets compiled (and stored)."""
    points = np.random.default_rng(0).standard_normal((64, 8)).astype(np.float32)
    model, _ = fit_loaded(points[:48], MapParams(n_neighbors=5), 5,
                          exact_neighbours(points[:48], 5))
    place_batches(model, points[48:])
    ExactCosineIndex(points).query(points[:1], 1)
