"""`hdbscan_labels`: scikit-learn's HDBSCAN on 2-D points in O(n log n) instead of O(n^2).

HDBSCAN (Campello, Moulavi and Sander, 2013) builds the minimum spanning tree of the
mutual-reachability graph, d_mr(a, b) = max(core(a), core(b), d(a, b)), core(p) being the
distance from p to its `min_samples`-th nearest point (p itself counted first). On a dense
input scikit-learn grows that tree with Prim's algorithm over every pair, which is quadratic
in the points. Here the same estimator (`sklearn.cluster.HDBSCAN`, which then
condenses the tree and picks the clusters) gets a sparse graph of candidate edges instead:
each point's `2 * min_samples` nearest neighbours plus the edges of the Delaunay
triangulation (connected, and it holds the Euclidean minimum spanning tree). The
tree over them weighed the same as the exact one on every layout we tried (30 layouts of
3,000 points: blobs with noise, a curve, uniform; at min_samples 5 and 10;
`test_clusters.py` keeps checking it), and with
distinct weights a spanning tree of minimum weight is the tree: the same clusters, in a
second or two at 50,000 points. Fewer than `2 * min_samples + 2` points get the complete
graph, which is exact by construction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix


def _edges_knn(points: np.ndarray, neighbours: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) from each point to its `neighbours` nearest others (self dropped: with
    duplicate points the point itself need not come first)."""
    from scipy.spatial import cKDTree

    n = len(points)
    _, idx = cKDTree(points).query(points, k=min(n, neighbours + 1))
    rows = np.repeat(np.arange(n), idx.shape[1])
    return rows, idx.ravel()


def _edges_delaunay(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the Delaunay triangulation's edges. `QJ` joggles the input so every
    point is a vertex (duplicate and collinear points included): the graph is connected."""
    from scipy.spatial import Delaunay

    simplices = Delaunay(points, qhull_options="QJ").simplices
    pairs = ((0, 1), (1, 2), (0, 2))
    return (np.concatenate([simplices[:, a] for a, _ in pairs]),
            np.concatenate([simplices[:, b] for _, b in pairs]))


def candidate_graph(points: np.ndarray, neighbours: int) -> csr_matrix:
    """The symmetric sparse graph of Euclidean distances over the candidate edges (each
    point's `neighbours` nearest others, plus the Delaunay edges when there are more points
    than that); no self loops."""
    from scipy.sparse import coo_matrix

    n = len(points)
    rows, cols = _edges_knn(points, neighbours)
    if n > neighbours + 1:
        more_rows, more_cols = _edges_delaunay(points)
        rows, cols = np.concatenate([rows, more_rows]), np.concatenate([cols, more_cols])
    rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    keys = np.sort(rows[rows != cols].astype(np.int64) * n + cols[rows != cols])
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # np.unique's hashing is 40x slower
    rows, cols = keys // n, keys % n
    delta = points[rows] - points[cols]
    # duplicate points are 0 apart, and a sparse graph drops zeros: a floor far below any
    # other distance keeps the edge and orders nothing differently
    extent = float(np.ptp(points, axis=0).max()) if n else 0.0
    floor = (extent or 1.0) * 1e-12
    distance = np.maximum(np.hypot(delta[:, 0], delta[:, 1]), floor)
    return coo_matrix((distance, (rows, cols)), shape=(n, n)).tocsr()


def hdbscan_labels(points: np.ndarray, *, min_cluster_size: int, min_samples: int
                   ) -> np.ndarray:
    """HDBSCAN cluster of each 2-D point (-1: noise), numbered as scikit-learn numbers them.
    `min_samples` counts the point itself, as scikit-learn's dense HDBSCAN does; both
    sizes are >= 2. Fewer points than `min_cluster_size` are all noise."""
    from sklearn.cluster import HDBSCAN

    n = len(points)
    if n < min_cluster_size or n < 2:
        return np.full(n, -1, dtype=np.int64)
    graph = candidate_graph(np.asarray(points, dtype=np.float64), 2 * min_samples)
    # the sparse path reads core(p) off p's row, which does not hold p: one fewer
    model = HDBSCAN(min_cluster_size=min_cluster_size, min_samples=min_samples - 1,
                    metric="precomputed", copy=False)
    return model.fit_predict(graph).astype(np.int64)
