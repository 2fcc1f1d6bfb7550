"""Where UMAP's layout starts: the graph's spectral embedding (the eigenvectors of its
normalised Laplacian with the smallest eigenvalues past the first), as umap-learn's
`spectral_layout` computes it, one connected component at a time when the graph falls
apart; or seeded random points when there are too few for eigenvectors."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg

#: The largest absolute coordinate of a starting layout (umap-learn's).
SPREAD = 10.0


def initial_layout(points: int, dims: int) -> str:
    """How the layout of `points` points starts: "spectral", or "random" (seeded) when there
    are too few points for dims + 1 eigenvectors."""
    return "spectral" if points >= dims + 2 else "random"


def _eigenvectors(graph: scipy.sparse.csr_matrix, dims: int, rng: np.random.Generator
                  ) -> np.ndarray:
    """The spectral embedding of one connected graph: n x dims."""
    n = graph.shape[0]
    degree = np.asarray(graph.sum(axis=0)).ravel()
    inverse_root = scipy.sparse.diags(1.0 / np.sqrt(degree))
    laplacian = scipy.sparse.identity(n) - inverse_root @ graph @ inverse_root
    k = dims + 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values, vectors = scipy.sparse.linalg.eigsh(
                laplacian, k, which="SM", ncv=min(n, max(2 * k + 1, int(np.sqrt(n)))),
                tol=1e-4, v0=np.ones(n), maxiter=n * 5)
    except (scipy.sparse.linalg.ArpackError, ValueError, TypeError):
        # too small an eigengap (or too few points for ARPACK): start at random instead
        return rng.uniform(-SPREAD, SPREAD, size=(n, dims))
    order = np.argsort(values)[1:k]
    return vectors[:, order]


def _component_centres(vectors: np.ndarray, labels: np.ndarray, count: int, dims: int,
                       rng: np.random.Generator) -> np.ndarray:
    """Where each connected component sits: the spectral embedding of their centroids'
    affinities when there are many, the corners of a cross when there are few
    (umap-learn's `component_layout`), scaled to at most 1."""
    if count <= 2 * dims:
        half = int(np.ceil(count / 2.0))
        base = np.hstack([np.eye(half), np.zeros((half, dims - half))])
        return np.vstack([base, -base])[:count]
    centroids = np.zeros((count, vectors.shape[1]))
    np.add.at(centroids, labels, vectors)
    centroids /= np.bincount(labels, minlength=count)[:, None]
    norms = np.linalg.norm(centroids, axis=1, keepdims=True)
    unit = np.divide(centroids, norms, out=np.zeros_like(centroids), where=norms > 0)
    distance = np.clip(1.0 - unit @ unit.T, 0.0, 2.0)  # cosine, as the map
    affinity = scipy.sparse.csr_matrix(np.exp(-distance ** 2))
    centres = _eigenvectors(affinity, dims, rng)
    return centres / np.abs(centres).max()


def spectral_layout(vectors: np.ndarray, graph: scipy.sparse.coo_matrix, dims: int,
                    rng: np.random.Generator) -> np.ndarray:
    """The starting layout of the points of `graph` (n x dims): spectral per connected
    component, components placed apart by their centroids in `vectors`."""
    csr = graph.tocsr()
    count, labels = scipy.sparse.csgraph.connected_components(csr, directed=False)
    if count == 1:
        return _eigenvectors(csr, dims, rng)
    centres = _component_centres(vectors, labels, count, dims, rng)
    layout = np.empty((graph.shape[0], dims))
    for label in range(count):
        members = np.flatnonzero(labels == label)
        gaps = np.linalg.norm(centres - centres[label], axis=1)
        reach = gaps[gaps > 0].min() / 2.0 if (gaps > 0).any() else 1.0
        if len(members) < 2 * dims or len(members) <= dims + 1:
            layout[members] = rng.uniform(-reach, reach, size=(len(members), dims))
        else:
            part = _eigenvectors(csr[members][:, members], dims, rng)
            layout[members] = part * (reach / np.abs(part).max())
        layout[members] += centres[label]
    return layout


def start(vectors: np.ndarray, graph: scipy.sparse.coo_matrix, dims: int,
          rng: np.random.Generator) -> np.ndarray:
    """The layout the optimisation starts from, scaled into [0, 10] per axis: spectral with a
    little noise (as umap-learn), or uniform random for a handful of points."""
    n = graph.shape[0]
    if initial_layout(n, dims) == "random":
        layout = rng.uniform(-SPREAD, SPREAD, size=(n, dims))
    else:
        layout = spectral_layout(vectors, graph, dims, rng)
        layout = layout * (SPREAD / np.abs(layout).max())
        layout = layout + rng.normal(scale=1e-4, size=layout.shape)
    low, high = layout.min(axis=0), layout.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return SPREAD * (layout - low) / span
