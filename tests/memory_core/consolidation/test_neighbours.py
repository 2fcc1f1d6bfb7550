"""Nearest neighbours: exact below `EXACT_UP_TO` (as a brute-force sort says), and through
the inverted file above it, finding the close neighbours of clustered vectors."""

from __future__ import annotations

import numpy as np
import pytest

from memory_core.consolidation import neighbours


def _clustered(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, 32))
    points = centres[rng.integers(0, 40, n)] + 0.3 * rng.standard_normal((n, 32))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def _brute(unit: np.ndarray, k: int) -> np.ndarray:
    sims = unit @ unit.T
    np.fill_diagonal(sims, -np.inf)
    return np.argsort(-sims, axis=1, kind="stable")[:, :k]


def test_exact_search_is_the_brute_force_answer() -> None:
    unit = _clustered(300)
    idx, cos = neighbours.nearest_neighbours(unit, 5)
    assert {frozenset(r) for r in idx} == {frozenset(r) for r in _brute(unit, 5)}
    assert (np.diff(cos, axis=1) <= 0).all()  # nearest first
    assert not (idx == np.arange(300)[:, None]).any()  # never a row itself


def test_the_inverted_file_finds_the_close_neighbours(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    monkeypatch.setattr(neighbours, "EXACT_UP_TO", 100)
    unit = _clustered(2000)
    idx, _ = neighbours.nearest_neighbours(unit, 10)
    truth = _brute(unit, 10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(idx, truth, strict=True)])
    assert recall > 0.95
    assert not (idx == np.arange(2000)[:, None]).any()


def test_fewer_rows_than_k_pad_with_nothing() -> None:
    idx, cos = neighbours.nearest_neighbours(np.eye(3, dtype=np.float32), 5)
    assert (idx[:, 2:] == -1).all() and np.isinf(cos[:, 2:]).all()
