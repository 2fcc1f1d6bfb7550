"""RRF fusion against hand-worked values (ADR-001 in docs/design/seeds.md)."""

from __future__ import annotations

import pytest

from memory_core.model.errors import InvalidConfigError
from memory_core.retrieval.fusion import rrf

W = {"vector": 1.0, "bm25": 1.0, "graph": 1.5}


def test_single_engine_scores_are_reciprocal_ranks() -> None:
    fused = {f.doc_id: f for f in rrf({"vector": ["a", "b", "c"]}, W)}
    assert fused["a"].score == 1 / (60 + 1)
    assert fused["c"].score == 1 / (60 + 3)
    assert fused["b"].bonus == 1.0


def test_two_engines_sum_and_get_the_convergence_bonus() -> None:
    fused = {f.doc_id: f for f in rrf({"vector": ["d2", "d1"], "bm25": ["d3", "d4", "d1"]}, W)}
    assert fused["d1"].fused_sum == 1 / (60 + 2) + 1 / (60 + 3)
    assert fused["d1"].bonus == 1.10
    assert fused["d1"].score == pytest.approx((1 / 62 + 1 / 63) * 1.10)
    assert fused["d1"].ranks == {"vector": 2, "bm25": 3}
    assert fused["d2"].score == 1 / 61
    assert [f.doc_id for f in rrf({"vector": ["d2", "d1"], "bm25": ["d3", "d4", "d1"]}, W)][0] \
        == "d1"


def test_graph_weight_is_one_and_a_half() -> None:
    fused = {f.doc_id: f for f in rrf({"bm25": ["x"], "graph": ["y", "x"]}, W)}
    assert fused["y"].score == 1.5 / (60 + 1)
    assert fused["x"].contributions == {"bm25": 1 / 61, "graph": 1.5 / 62}
    assert fused["x"].score == pytest.approx((1 / 61 + 1.5 / 62) * 1.10)


def test_k_weights_and_bonus_are_parameters() -> None:
    fused = rrf({"vector": ["a"], "bm25": ["a"]}, {"vector": 2.0, "bm25": 0.5}, k=10,
                convergence_bonus=1.5)
    assert fused[0].score == pytest.approx((2.0 / 11 + 0.5 / 11) * 1.5)


def test_ties_break_by_id_and_duplicates_count_once() -> None:
    fused = rrf({"vector": ["b", "a"], "bm25": ["a", "b", "a"]}, W)
    assert [f.doc_id for f in fused] == ["a", "b"]
    assert fused[0].ranks == {"vector": 2, "bm25": 1}


def test_bad_parameters() -> None:
    with pytest.raises(InvalidConfigError):
        rrf({"vector": ["a"]}, W, k=0)
    with pytest.raises(InvalidConfigError, match="no weight for engine"):
        rrf({"other": ["a"]}, W)
