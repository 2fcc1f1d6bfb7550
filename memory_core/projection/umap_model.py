"""`Umap`: UMAP (McInnes, Healy & Melville 2018) with cosine distance, fitted and applied in
numpy and scipy, no compiler.

Why not umap-learn: it is numba code that compiles the first time it runs on a machine,
36-62 s on the two cores here (pynndescent's included), more than the 15 s a first map may
take, and it has to compile again after every upgrade. This is the same algorithm with
umap-learn's numbers: the fuzzy neighbour graph (`fuzzy_graph`), the spectral start
(`spectral`), 500 epochs up to 10,000 points and 200 beyond, the (a, b) curve fitted to
`min_dist`, five negative samples per edge sample (`optimise`); `transform` places new
points as umap-learn does, from the weighted mean of their fitted neighbours, then a third of
the epochs with the map held still and a quarter of the learning rate. Its layouts keep
neighbourhoods as well as umap-learn's (a test compares the trustworthiness of both on the
demo store's vectors).

A `Umap` is plain numpy arrays, so its pickle loads without importing anything but numpy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from memory_core.projection import fuzzy_graph, optimise, spectral
from memory_core.projection.neighbours import ExactCosineIndex

#: Names this implementation in map cache keys: change it when a change moves layouts.
ALGORITHM = "memlens-umap-1"
#: Learning rate of a fit; `transform` uses a quarter of it (umap-learn's).
LEARNING_RATE = 1.0

Advance = Callable[[int, int], None]


class Umap:
    """UMAP fitted on some vectors: `embedding_` (their layout), what `transform` needs to
    place others (the fitted vectors' `index`, the curve's `a` and `b`), and the settings.
    """

    def __init__(self, *, n_neighbors: int, min_dist: float, n_components: int,
                 seed: int) -> None:
        self.n_neighbors = n_neighbors
        self.min_dist = min_dist
        self.n_components = n_components
        self.seed = seed
        self.a, self.b = optimise.curve(min_dist)
        self.embedding_: np.ndarray | None = None
        self.index: ExactCosineIndex | None = None

    def fit_transform(self, vectors: np.ndarray,
                      known: tuple[np.ndarray, np.ndarray] | None = None,
                      advance: Advance | None = None) -> np.ndarray:
        """The layout of `vectors` (n x n_components), kept as `embedding_`; `known` is their
        exact neighbours (`ExactCosineIndex.query(vectors, n_neighbors)`) if already found."""
        rng = np.random.default_rng(self.seed)
        self.index = ExactCosineIndex(vectors)
        indices, distances = known if known is not None else self.index.query(
            vectors, self.n_neighbors)
        graph = fuzzy_graph.fuzzy_graph(indices, distances, self.n_neighbors)
        start = spectral.start(self.index.data, graph, self.n_components, rng)
        n_epochs = optimise.epochs(len(vectors))
        edges = optimise.Edges.of(graph.row, graph.col, graph.data, n_epochs)
        self.embedding_ = optimise.optimise(start, None, edges, n_epochs, self.a, self.b,
                                            rng, learning_rate=LEARNING_RATE, advance=advance)
        return self.embedding_

    def transform(self, vectors: np.ndarray) -> np.ndarray:
        """New vectors placed on the fitted map (n x n_components): each starts at the
        weighted mean of its fitted neighbours and is then optimised against the map, which
        does not move. The same vectors are placed the same way every time."""
        if self.embedding_ is None or self.index is None:
            raise ValueError("this Umap is not fitted: call fit_transform first")
        fitted = len(self.embedding_)
        k = min(self.n_neighbors, fitted)
        indices, distances = self.index.query(vectors, k)
        graph = fuzzy_graph.placement_graph(indices, distances, k, fitted)
        start = _weighted_start(graph.tocsr(), self.embedding_)
        n_epochs = 100 if len(vectors) <= 10_000 else 30
        edges = optimise.Edges.of(graph.row, graph.col, graph.data, n_epochs)
        rng = np.random.default_rng(self.seed)
        return optimise.optimise(start, self.embedding_, edges, n_epochs, self.a, self.b,
                                 rng, learning_rate=LEARNING_RATE / 4.0)


def _weighted_start(graph: object, layout: np.ndarray) -> np.ndarray:
    """Each new point at the membership-weighted mean of its fitted neighbours' places, or
    exactly at a fitted point it is identical to (umap-learn's `init_graph_transform`)."""
    import scipy.sparse

    csr = scipy.sparse.csr_matrix(graph)
    sums = np.asarray(csr.sum(axis=1)).ravel()
    start = np.asarray(csr @ layout) / np.where(sums > 0, sums, 1.0)[:, None]
    start[sums == 0] = np.nan
    exact = csr.multiply(csr == 1.0).tocsr()
    for row in np.flatnonzero(np.diff(exact.indptr)):
        start[row] = layout[exact.indices[exact.indptr[row]]]
    return start
