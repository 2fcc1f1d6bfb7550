"""memlens' UMAP: layouts that keep neighbourhoods as well as umap-learn's on the demo
store's real vectors, repeatable for a seed, placing new points by their neighbours; and
its parts against hand-checked numbers (the curve, the fuzzy graph, the spectral start)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from sklearn.manifold import trustworthiness

from memory_core.projection import fuzzy_graph, optimise, spectral
from memory_core.projection.neighbours import ExactCosineIndex
from memory_core.projection.umap_model import Umap
from memory_core.seeding import DEMO_VECTORS, demo_dir


@pytest.fixture(scope="module")
def demo_vectors() -> np.ndarray:
    """The demo corpus' MiniLM vectors (2,979 texts, 384-d), as shipped with the demo."""
    with np.load(demo_dir() / DEMO_VECTORS) as shipped:
        return np.ascontiguousarray(shipped["vectors"], dtype=np.float32)


def _clouds(n: int, seed: int = 0, dim: int = 16) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((2, dim)) * 3
    return (centres[np.arange(n) % 2] + rng.standard_normal((n, dim))).astype(np.float32)


def test_the_demo_map_keeps_neighbourhoods_like_umap_learn(demo_vectors: np.ndarray) -> None:
    """Trustworthiness (scikit-learn, 15 neighbours, cosine) of the 2-D layout: umap-learn
    0.5.12 scores 0.900 on these vectors with seed 42, this UMAP 0.904; a PCA scores 0.680."""
    layout = Umap(n_neighbors=15, min_dist=0.1, n_components=2, seed=42).fit_transform(
        demo_vectors)
    score = trustworthiness(demo_vectors, layout, n_neighbors=15, metric="cosine")
    assert score >= 0.89, score


def test_same_seed_same_layout_and_another_seed_another() -> None:
    vectors = _clouds(120)
    first = Umap(n_neighbors=10, min_dist=0.1, n_components=2, seed=1).fit_transform(vectors)
    again = Umap(n_neighbors=10, min_dist=0.1, n_components=2, seed=1).fit_transform(vectors)
    other = Umap(n_neighbors=10, min_dist=0.1, n_components=2, seed=2).fit_transform(vectors)
    assert np.array_equal(first, again) and not np.allclose(first, other)


def test_two_clouds_are_laid_out_apart_in_2d_and_3d() -> None:
    vectors = _clouds(200)
    for dims in (2, 3):
        layout = Umap(n_neighbors=15, min_dist=0.1, n_components=dims, seed=0).fit_transform(
            vectors)
        a, b = layout[0::2], layout[1::2]
        spread = max(np.linalg.norm(a - a.mean(0), axis=1).mean(),
                     np.linalg.norm(b - b.mean(0), axis=1).mean())
        assert np.linalg.norm(a.mean(0) - b.mean(0)) > 3 * spread


def test_transform_places_new_points_in_their_cloud() -> None:
    vectors = _clouds(300, seed=3)
    model = Umap(n_neighbors=15, min_dist=0.1, n_components=2, seed=0)
    layout = model.fit_transform(vectors[:200])
    placed = model.transform(vectors[200:])
    centres = layout[0::2].mean(0), layout[1::2].mean(0)
    own = np.arange(200, 300) % 2
    nearer = [np.linalg.norm(p - centres[o]) < np.linalg.norm(p - centres[1 - o])
              for p, o in zip(placed, own, strict=True)]
    assert all(nearer)
    assert np.array_equal(model.transform(vectors[200:]), placed)  # repeatable


def test_an_unfitted_model_cannot_place() -> None:
    with pytest.raises(ValueError, match="not fitted"):
        Umap(n_neighbors=5, min_dist=0.1, n_components=2, seed=0).transform(np.ones((1, 4)))


def test_the_curve_matches_umap_learns_for_its_default_min_dist() -> None:
    """umap-learn's `find_ab_params(1.0, 0.1)` gives a = 1.577, b = 0.895."""
    a, b = optimise.curve(0.1)
    assert a == pytest.approx(1.577, abs=2e-3) and b == pytest.approx(0.895, abs=2e-3)


def test_memberships_of_each_point_sum_to_log2_k() -> None:
    vectors = _clouds(80)
    indices, distances = ExactCosineIndex(vectors).query(vectors, 10)
    d = distances.astype(np.float64)
    d[:, 0] = 0.0  # itself (the search leaves float rounding there; `fuzzy_graph` zeroes it)
    rho = fuzzy_graph.nearest_distance(d, 1.0)
    assert np.array_equal(rho, d[:, 1])  # the nearest other point (the first is itself)
    sigma = fuzzy_graph.bandwidths(d, rho, 10.0)
    values = fuzzy_graph.memberships(indices, d, rho, sigma, bipartite=False)
    assert (values[:, 0] == 0).all() and (values[:, 1] == 1).all()
    assert np.allclose(values[:, 1:].sum(axis=1), np.log2(10), atol=1e-4)


def test_the_graph_is_the_fuzzy_union_of_both_directions() -> None:
    indices = np.array([[0, 1, 2], [1, 0, 2], [2, 1, 0]])
    distances = np.array([[0.0, 0.1, 0.5], [0.0, 0.1, 0.2], [0.0, 0.2, 0.5]])
    graph = fuzzy_graph.fuzzy_graph(indices, distances, 3).toarray()
    single = fuzzy_graph.membership_matrix(
        indices, fuzzy_graph.memberships(
            indices, distances, fuzzy_graph.nearest_distance(distances, 1.0),
            fuzzy_graph.bandwidths(distances, fuzzy_graph.nearest_distance(distances, 1.0),
                                   3.0), bipartite=False), 3).toarray()
    assert np.allclose(graph, single + single.T - single * single.T)
    assert np.allclose(graph, graph.T) and (np.diag(graph) == 0).all()


def test_a_graph_in_pieces_starts_with_its_pieces_apart() -> None:
    """Two components: each laid out spectrally around its own centre, side by side
    without overlapping, inside [0, 10]."""
    ring = scipy.sparse.diags([1.0] * 9, 1, shape=(10, 10))
    graph = scipy.sparse.block_diag([ring + ring.T, ring + ring.T]).tocoo()
    vectors = np.vstack([np.tile([1.0, 0.0], (10, 1)), np.tile([0.0, 1.0], (10, 1))])
    start = spectral.start(vectors, graph, 2, np.random.default_rng(0))
    assert start.min() >= 0 and start.max() <= 10 + 1e-9
    first, second = start[:10], start[10:]
    left, right = sorted((first, second), key=lambda part: part[:, 0].mean())
    assert left[:, 0].max() <= right[:, 0].min() + 1e-3
    assert np.ptp(first, axis=0).min() > 1 and np.ptp(second, axis=0).min() > 1


def test_too_few_points_start_at_random() -> None:
    assert spectral.initial_layout(3, 2) == "random" and spectral.initial_layout(4, 2) == (
        "spectral")
