"""The reducer: umap-learn fitted from the exact neighbours memlens hands it (not searched
again), as good a map of the demo store's real vectors as the card asks, repeatable for a
seed, placing in batches with progress, a fitted model that pickles and places the same
afterwards."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from memory_core.projection import reducer
from memory_core.projection.neighbours import ExactCosineIndex
from memory_core.projection.params import MapParams
from memory_core.seeding import DEMO_VECTORS, demo_file


def _clouds(n: int, seed: int = 0) -> np.ndarray:
    """`n` vectors in two tight clouds of 16-d directions."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((2, 16))
    return (centres[np.arange(n) % 2] + 0.1 * rng.standard_normal((n, 16))).astype(np.float32)


@pytest.mark.slow
def test_the_demo_map_keeps_neighbourhoods() -> None:
    """Trustworthiness (scikit-learn, 15 neighbours, cosine) of umap-learn's 2-D layout of
    the demo corpus' MiniLM vectors (2,979 texts, 384-d) with seed 42: 0.91 here; a PCA of
    the same vectors scores 0.68."""
    import umap
    from sklearn.manifold import trustworthiness

    with np.load(demo_file(DEMO_VECTORS)) as shipped:
        vectors = np.ascontiguousarray(shipped["vectors"], dtype=np.float32)
    model, layout = reducer.fit(vectors, MapParams(), 15, reducer.exact_neighbours(vectors, 15))
    assert isinstance(model, umap.UMAP)
    score = trustworthiness(vectors, layout, n_neighbors=15, metric="cosine")
    assert score >= 0.89, score


def test_exact_neighbours_are_the_index_answer_with_progress() -> None:
    vectors = _clouds(40)
    seen: list[tuple[int, int]] = []
    indices, distances = reducer.exact_neighbours(vectors, 5, lambda d, t: seen.append((d, t)))
    assert indices.shape == (40, 5) and (indices[:, 0] == np.arange(40)).all()
    expected = ExactCosineIndex(vectors).query(vectors, 5)
    assert (indices == expected[0]).all() and np.allclose(distances, expected[1])
    assert seen[-1] == (40, 40)


def test_umap_learn_is_fitted_from_the_neighbours_it_is_given() -> None:
    """The neighbours handed over are the ones umap-learn's graph is built from, and the
    exact index is what its `transform` searches (no pynndescent index is built)."""
    vectors = _clouds(60)
    known = reducer.exact_neighbours(vectors, 10)
    epochs: list[tuple[int, int]] = []
    model, layout = reducer.fit(vectors, MapParams(n_neighbors=10), 10, known,
                                lambda e, n: epochs.append((e, n)))
    assert np.array_equal(model._knn_indices, known[0])
    assert isinstance(model._knn_search_index, ExactCosineIndex)
    again_model, again = reducer.fit(vectors, MapParams(n_neighbors=10), 10)
    assert np.array_equal(layout, again)  # found here or given: the same neighbours
    assert epochs[-1] == (500, 500) and epochs == sorted(epochs)
    assert layout.shape == (60, 2) and layout.dtype == np.float64


def test_same_seed_same_layout_and_another_seed_another() -> None:
    vectors = _clouds(120, seed=4)
    _, first = reducer.fit(vectors, MapParams(n_neighbors=10, seed=1), 10)
    _, again = reducer.fit(vectors, MapParams(n_neighbors=10, seed=1), 10)
    _, other = reducer.fit(vectors, MapParams(n_neighbors=10, seed=2), 10)
    assert np.array_equal(first, again) and not np.allclose(first, other)


@pytest.mark.slow
def test_two_clouds_are_laid_out_apart_in_2d_and_3d() -> None:
    vectors = _clouds(200, seed=2)
    for dims in (2, 3):
        _, layout = reducer.fit(vectors, MapParams(dims=dims, seed=0), 15)
        a, b = layout[0::2], layout[1::2]
        spread = max(np.linalg.norm(a - a.mean(0), axis=1).mean(),
                     np.linalg.norm(b - b.mean(0), axis=1).mean())
        assert layout.shape == (200, dims)
        assert np.linalg.norm(a.mean(0) - b.mean(0)) > 3 * spread


def test_placing_in_batches_equals_placing_each_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    vectors = _clouds(80)
    model, layout = reducer.fit(vectors[:50], MapParams(n_neighbors=10), 10)
    monkeypatch.setattr(reducer, "PLACE_BATCH", 12)
    done: list[int] = []
    placed = reducer.place_batches(model, vectors[50:], done.append)
    assert done == [12, 24, 30]
    assert np.array_equal(placed[12:24], reducer.place_batches(model, vectors[62:74]))
    centres = layout[0::2].mean(0), layout[1::2].mean(0)
    own = np.arange(50, 80) % 2
    assert all(np.linalg.norm(p - centres[o]) < np.linalg.norm(p - centres[1 - o])
               for p, o in zip(placed, own, strict=True))


def test_a_pickled_model_places_exactly_like_the_fitted_one() -> None:
    vectors = _clouds(50)
    model, _ = reducer.fit(vectors, MapParams(n_neighbors=8, seed=5), 8)
    restored = pickle.loads(pickle.dumps(model))
    assert np.array_equal(reducer.place_batches(restored, vectors[:7] + 0.01),
                          reducer.place_batches(model, vectors[:7] + 0.01))
