"""Score fusion (convex, CombMNZ) against scores worked out by hand."""

from __future__ import annotations

import math

import pytest

from memory_core.model.errors import InvalidConfigError
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.engines import Candidate
from memory_core.retrieval.fusion import fuse
from memory_core.retrieval.score_fusion import normalise, score_fusion

W = {"vector": 1.0, "bm25": 1.0, "graph": 1.5}


def test_minmax_and_shifted_zscore_normalisation() -> None:
    assert normalise([9.0, 5.0, 1.0], "minmax") == [1.0, 0.5, 0.0]
    std = math.sqrt(((9 - 5) ** 2 + 0 + (1 - 5) ** 2) / 3)
    assert normalise([9.0, 5.0, 1.0], "zscore") == pytest.approx([8 / std, 4 / std, 0.0])
    assert normalise([3.0, 3.0], "zscore") == [1.0, 1.0]
    assert normalise([], "minmax") == []
    with pytest.raises(InvalidConfigError, match="unknown normalisation 'l2'"):
        normalise([1.0], "l2")


def test_convex_weights_the_normalised_scores_and_shares_one_scale() -> None:
    # bm25 min-max: a 1, b 0; vector: b 1, c 0.5, a 0 -> weights 1 and 1 of 2
    fused = score_fusion({"bm25": [("a", 12.0), ("b", 2.0)],
                          "vector": [("b", 0.9), ("c", 0.6), ("a", 0.3)]}, W,
                         normalisation="minmax")
    by_id = {f.doc_id: f for f in fused}
    assert by_id["a"].score == pytest.approx((1.0 + 0.0) / 2)
    assert by_id["b"].score == pytest.approx((0.0 + 1.0) / 2)
    assert by_id["c"].score == pytest.approx(0.5 / 2)
    assert by_id["c"].contributions == {"vector": pytest.approx(0.25)}
    assert by_id["a"].ranks == {"bm25": 1, "vector": 3}
    assert [f.doc_id for f in fused] == ["a", "b", "c"]  # a and b tie: by id
    assert all(f.bonus == 1.0 and f.score == f.fused_sum for f in fused)


def test_a_strong_engine_clear_winner_beats_rrf_rank_averaging() -> None:
    # BM25 is sure about d (score far above the rest); the vector engine barely prefers e.
    # RRF only sees ranks, so e (1st and 2nd) beats d (2nd and 1st)... a tie broken by id;
    # the convex combination keeps BM25's margin.
    rankings = {"bm25": [Candidate("d", 1, 20.0), Candidate("e", 2, 2.0),
                         Candidate("f", 3, 1.9)],
                "vector": [Candidate("e", 1, 0.61), Candidate("d", 2, 0.60),
                           Candidate("f", 3, 0.10)]}
    convex = fuse(rankings, RankingConfig(fusion="convex", normalisation="minmax"))
    assert convex[0].doc_id == "d"
    d = {f.doc_id: f for f in convex}["d"]
    assert d.score == pytest.approx((1.0 + (0.60 - 0.10) / (0.61 - 0.10)) / 2)


def test_combmnz_multiplies_the_sum_by_the_engines_that_found_it() -> None:
    fused = {f.doc_id: f for f in score_fusion(
        {"bm25": [("a", 4.0), ("b", 2.0), ("c", 0.0)], "vector": [("a", 0.5), ("c", 0.1)]},
        W, method="combmnz", normalisation="minmax")}
    assert fused["a"].bonus == 2.0 and fused["a"].score == pytest.approx(2 * (1.0 + 1.0) / 2)
    assert fused["b"].bonus == 1.0 and fused["b"].score == pytest.approx(0.5 / 2)
    assert fused["c"].score == pytest.approx(2 * (0.0 + 0.0) / 2)


def test_bare_id_lists_score_by_reciprocal_rank_and_zero_weights_score_zero() -> None:
    fused = fuse({"bm25": ["a", "b"]}, RankingConfig(fusion="convex", normalisation="minmax"))
    assert [(f.doc_id, f.score) for f in fused] == [("a", 1.0), ("b", 0.0)]
    off = fuse({"bm25": ["a"]}, RankingConfig(fusion="convex", weight_bm25=0.0))
    assert off[0].score == 0.0
    with pytest.raises(InvalidConfigError, match="unknown score fusion 'borda'"):
        score_fusion({"bm25": [("a", 1.0)]}, W, method="borda")


def test_config_validates_the_new_knobs() -> None:
    with pytest.raises(InvalidConfigError, match="fusion must be one of: rrf, convex, combmnz"):
        RankingConfig(fusion="borda")
    with pytest.raises(InvalidConfigError, match="context_window must be 0..10"):
        RankingConfig(context_window=11)
    with pytest.raises(InvalidConfigError, match="decay_weight must lie in 0..1"):
        RankingConfig(decay_weight=1.5)
    with pytest.raises(InvalidConfigError, match="bm25_context must be one of: window, lift"):
        RankingConfig(bm25_context="sum")
    old = RankingConfig.from_dict({"use_decay": True})  # a config saved before these knobs
    assert (old.fusion, old.context_window, old.decay_weight, old.bm25_context) == (
        "convex", 2, 0.3, "window")
