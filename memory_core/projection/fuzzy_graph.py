"""UMAP's neighbour graph: each point's fuzzy set of its nearest neighbours, made symmetric
(McInnes, Healy & Melville 2018, section 3; umap-learn's `fuzzy_simplicial_set`), in numpy.

Every point i gets a distance to its nearest neighbour `rho_i` and a bandwidth `sigma_i`
chosen by bisection so that its neighbours' memberships exp(-(d - rho_i) / sigma_i) sum to
log2(k). The graph of those memberships is then made symmetric by the fuzzy union
A + A^T - A * A^T. Numbers follow umap-learn 0.5 (64 bisection steps, tolerance 1e-5, the
bandwidth floored at 1e-3 of the mean distance); the bisection runs for all points at once.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

#: Bisection steps, and how close to log2(k) the memberships must sum (umap-learn's).
BISECTION_STEPS = 64
TOLERANCE = 1e-5
#: A bandwidth is at least this share of the mean neighbour distance.
MIN_BANDWIDTH_SHARE = 1e-3
#: Cosine distance at or beyond which two points are not neighbours (opposite vectors).
DISCONNECTED = 2.0


def nearest_distance(distances: np.ndarray, local_connectivity: float) -> np.ndarray:
    """rho: per row, the distance to the `local_connectivity`-th neighbour at a positive
    distance (interpolated for a fraction; 0 when `local_connectivity` is 0); rows with
    fewer positive distances take their largest."""
    n = len(distances)
    rho = np.zeros(n, dtype=np.float64)
    if local_connectivity <= 0:
        return rho
    index = int(np.floor(local_connectivity))
    fraction = local_connectivity - index
    positive = np.where(distances > 0, distances, np.inf)
    ordered = np.sort(positive, axis=1)
    count = (distances > 0).sum(axis=1)
    enough = count >= local_connectivity
    if index > 0:
        base = ordered[:, index - 1]
        if fraction > TOLERANCE and ordered.shape[1] > index:
            base = base + fraction * (ordered[:, index] - base)
    else:
        base = fraction * ordered[:, 0]
    rho[enough] = base[enough]
    some = ~enough & (count > 0)
    rho[some] = np.where(np.isfinite(positive[some]), positive[some], -np.inf).max(axis=1)
    return rho


def bandwidths(distances: np.ndarray, rho: np.ndarray, k: float) -> np.ndarray:
    """sigma: per row, the bandwidth at which the memberships of the row's neighbours (all
    but the first column, as umap-learn counts) sum to log2(k), by bisection."""
    target = np.log2(k)
    shifted = distances[:, 1:] - rho[:, None]
    n = len(distances)
    lo = np.zeros(n)
    hi = np.full(n, np.inf)
    mid = np.ones(n)
    searching = np.ones(n, dtype=bool)
    for _ in range(BISECTION_STEPS):
        rows = np.flatnonzero(searching)
        if not len(rows):
            break
        d = shifted[rows]
        with np.errstate(over="ignore"):
            psum = np.where(d > 0, np.exp(-d / mid[rows, None]), 1.0).sum(axis=1)
        done = np.abs(psum - target) < TOLERANCE
        searching[rows[done]] = False
        rows, psum = rows[~done], psum[~done]
        over = psum > target
        hi[rows[over]] = mid[rows[over]]
        lo[rows[~over]] = mid[rows[~over]]
        bounded = np.isfinite(hi[rows])
        mid[rows] = np.where(bounded, (lo[rows] + hi[rows]) / 2.0, mid[rows] * 2.0)
    floor = np.where(rho > 0, MIN_BANDWIDTH_SHARE * distances.mean(axis=1),
                     MIN_BANDWIDTH_SHARE * distances.mean())
    return np.maximum(mid, floor)


def memberships(indices: np.ndarray, distances: np.ndarray, rho: np.ndarray,
                sigma: np.ndarray, *, bipartite: bool) -> np.ndarray:
    """The membership of each (row, neighbour) pair: 1 within rho, exp(-(d - rho) / sigma)
    beyond; 0 for a point paired with itself (unless `bipartite`: rows are other points)."""
    shifted = distances - rho[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = np.where((shifted <= 0) | (sigma[:, None] == 0), 1.0,
                          np.exp(-shifted / sigma[:, None]))
    if not bipartite:
        values[indices == np.arange(len(indices))[:, None]] = 0.0
    values[(indices < 0) | (distances >= DISCONNECTED)] = 0.0
    return values


def membership_matrix(indices: np.ndarray, values: np.ndarray, columns: int
                      ) -> scipy.sparse.csr_matrix:
    """Rows x `columns` sparse matrix of the memberships (zeros dropped)."""
    rows = np.repeat(np.arange(len(indices)), indices.shape[1])
    keep = (values.ravel() > 0) & (indices.ravel() >= 0)
    matrix = scipy.sparse.coo_matrix(
        (values.ravel()[keep], (rows[keep], indices.ravel()[keep])),
        shape=(len(indices), columns)).tocsr()
    matrix.sum_duplicates()
    return matrix


def fuzzy_graph(indices: np.ndarray, distances: np.ndarray, k: int) -> scipy.sparse.coo_matrix:
    """The symmetric fuzzy neighbour graph of n points from their k nearest neighbours
    (`indices`, cosine `distances`, n x k, each row nearest first, the point itself first)."""
    distances = np.array(distances, dtype=np.float64)
    # a point's distance to itself is 0, whatever float rounding made of it (1e-7 would
    # count as its nearest neighbour)
    distances[indices == np.arange(len(indices))[:, None]] = 0.0
    rho = nearest_distance(distances, 1.0)
    sigma = bandwidths(distances, rho, float(k))
    values = memberships(indices, distances, rho, sigma, bipartite=False)
    single = membership_matrix(indices, values, len(indices))
    transpose = single.transpose().tocsr()
    union = single + transpose - single.multiply(transpose)
    union = scipy.sparse.csr_matrix(union)
    union.eliminate_zeros()
    return union.tocoo()


def placement_graph(indices: np.ndarray, distances: np.ndarray, k: int, fitted: int
                    ) -> scipy.sparse.coo_matrix:
    """New points' memberships to the `fitted` points they are nearest (umap-learn's
    `transform`: no local connectivity, so no neighbour is certain)."""
    distances = np.asarray(distances, dtype=np.float64)
    rho = nearest_distance(distances, 0.0)
    sigma = bandwidths(distances, rho, float(k))
    values = memberships(indices, distances, rho, sigma, bipartite=True)
    return membership_matrix(indices, values, fitted).tocoo()
