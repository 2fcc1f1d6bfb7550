"""MMR re-ordering by hand (Carbonell & Goldstein 1998)."""

from __future__ import annotations

import pytest

from memory_core.retrieval.mmr import mmr


def test_near_duplicate_is_pushed_down() -> None:
    picks = mmr({"a": 1.0, "b": 0.9, "c": 0.5}, {"a": [1, 0], "b": [1, 0], "c": [0, 1]},
                lam=0.4)
    assert [p.doc_id for p in picks] == ["a", "c", "b"]
    # c: 0.4 * 0.5 - 0.6 * 0 * 1.0 = 0.2 ; b: 0.4 * 0.9 - 0.6 * 1.0 * 1.0 = -0.24
    assert picks[1].objective == pytest.approx(0.2)
    assert picks[2].objective == pytest.approx(0.4 * 0.9 - 0.6)
    assert picks[2].max_similarity == pytest.approx(1.0)


def test_lambda_one_keeps_relevance_order_and_missing_vectors_are_dissimilar() -> None:
    picks = mmr({"a": 0.3, "b": 0.2, "c": 0.1}, {"a": [1, 0], "b": None, "c": [1, 0]}, lam=1.0)
    assert [p.doc_id for p in picks] == ["a", "b", "c"]
    assert mmr({}, {}) == []
