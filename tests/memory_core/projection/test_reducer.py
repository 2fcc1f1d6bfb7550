"""The reducer: fitted from the exact neighbours it is given, placing in batches with
progress, a fitted model that pickles and places the same afterwards."""

from __future__ import annotations

import pickle

import numpy as np

from memory_core.projection import reducer
from memory_core.projection.neighbours import ExactCosineIndex
from memory_core.projection.params import MapParams


def _clouds(n: int, seed: int = 0) -> np.ndarray:
    """`n` vectors in two tight clouds of 16-d directions."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((2, 16))
    return (centres[np.arange(n) % 2] + 0.1 * rng.standard_normal((n, 16))).astype(np.float32)


def test_exact_neighbours_are_the_index_answer_with_progress() -> None:
    vectors = _clouds(40)
    seen: list[tuple[int, int]] = []
    indices, distances = reducer.exact_neighbours(vectors, 5, lambda d, t: seen.append((d, t)))
    assert indices.shape == (40, 5) and (indices[:, 0] == np.arange(40)).all()
    expected = ExactCosineIndex(vectors).query(vectors, 5)
    assert (indices == expected[0]).all() and np.allclose(distances, expected[1])
    assert seen[-1] == (40, 40)


def test_fit_uses_the_neighbours_it_is_given_and_reports_its_epochs() -> None:
    vectors = _clouds(60)
    known = reducer.exact_neighbours(vectors, 10)
    epochs: list[tuple[int, int]] = []
    model, layout = reducer.fit(vectors, MapParams(n_neighbors=10), 10, known,
                                lambda e, n: epochs.append((e, n)))
    again_model, again = reducer.fit(vectors, MapParams(n_neighbors=10), 10)
    assert np.array_equal(layout, again)  # found here or given: the same neighbours
    assert epochs[-1] == (500, 500) and len(epochs) == 20
    assert layout.shape == (60, 2) and layout.dtype == np.float64


def test_placing_in_batches_equals_placing_each_batch(monkeypatch) -> None:
    vectors = _clouds(80)
    model, _ = reducer.fit(vectors[:50], MapParams(n_neighbors=10), 10)
    monkeypatch.setattr(reducer, "PLACE_BATCH", 12)
    done: list[int] = []
    placed = reducer.place_batches(model, vectors[50:], done.append)
    assert done == [12, 24, 30]
    assert np.array_equal(placed[12:24], model.transform(vectors[62:74]))


def test_a_pickled_model_places_exactly_like_the_fitted_one() -> None:
    vectors = _clouds(50)
    model, _ = reducer.fit(vectors, MapParams(n_neighbors=8, seed=5), 8)
    restored = pickle.loads(pickle.dumps(model))
    assert np.array_equal(restored.transform(vectors[:7]), model.transform(vectors[:7]))
