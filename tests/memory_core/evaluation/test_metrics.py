"""Metrics against values worked out by hand (these pin the variants), and against ranx."""

from __future__ import annotations

import math

import pytest

from memory_core.evaluation import (
    Query,
    RetrievalRun,
    check_ks,
    metric_names,
    result_from_run,
    score_queries,
)
from memory_core.model.errors import InvalidConfigError

# k = 3 and 5, so MRR and MAP are taken over the top 5.
QUERIES = [
    Query("q1", "graded", {"a": 3, "b": 1, "c": 2}),
    Query("q2", "late hit, short list", {"d": 1}),
    Query("q3", "found nothing", {"e": 2, "f": 1}),
    Query("q4", "relevant only at rank 6", {"u": 1}),
    Query("q5", "missing from the run", {"g": 1}),
]
RANKED = {
    "q1": ["a", "x", "b", "y", "c"],
    "q2": ["x", "y", "d"],
    "q3": [],
    "q4": ["x", "y", "z", "w", "v", "u"],  # cut at depth 5: u is never seen
}


@pytest.fixture(scope="module")
def scores() -> dict[str, dict[str, float]]:
    return score_queries(QUERIES, RANKED, ks=(5, 3))


def test_metric_names_and_cut_offs() -> None:
    assert metric_names((10, 5)) == (
        "recall@5", "recall@10", "precision@5", "precision@10", "hit_rate@5", "hit_rate@10",
        "ndcg@5", "ndcg@10", "mrr@10", "map@10")
    assert check_ks([3, 1, 3]) == (1, 3)
    for bad in ([], [0], [2, -1], [1.5], [True]):
        with pytest.raises(InvalidConfigError, match="cut-offs"):
            check_ks(bad)  # type: ignore[arg-type]


def test_recall_precision_hit_rate_by_hand(scores: dict[str, dict[str, float]]) -> None:
    # q1: a (rank 1) and b (rank 3) in the top 3 of 3 relevant; c joins at rank 5
    assert scores["recall@3"]["q1"] == pytest.approx(2 / 3)
    assert scores["recall@5"]["q1"] == 1.0
    assert scores["precision@3"]["q1"] == pytest.approx(2 / 3)
    assert scores["precision@5"]["q1"] == pytest.approx(3 / 5)
    # q2: d at rank 3 of a 3-long list; precision@5 divides by k = 5, not by 3
    assert scores["recall@3"]["q2"] == 1.0
    assert scores["precision@3"]["q2"] == pytest.approx(1 / 3)
    assert scores["precision@5"]["q2"] == pytest.approx(1 / 5)
    assert scores["hit_rate@3"] == {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 0.0, "q5": 0.0}


def test_ndcg_uses_linear_gain_by_hand(scores: dict[str, dict[str, float]]) -> None:
    # q1 grades by rank: 3, 0, 1, 0, 2; the ideal order is 3, 2, 1.
    dcg3 = 3 / math.log2(2) + 0 + 1 / math.log2(4)                     # 3.5
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)      # 4.7619
    assert scores["ndcg@3"]["q1"] == pytest.approx(dcg3 / idcg)        # 0.7350
    dcg5 = dcg3 + 2 / math.log2(6)                                     # 4.2737
    assert scores["ndcg@5"]["q1"] == pytest.approx(dcg5 / idcg)        # 0.8975
    # with 2**grade - 1 gains (Burges) q1's nDCG@3 would be (7 + 1/2) / (7 + 3/log2(3) + 1/2)
    assert scores["ndcg@3"]["q1"] != pytest.approx(7.5 / (7.5 + 3 / math.log2(3)))
    # q2: one relevant memory (grade 1) at rank 3: (1 / log2(4)) / 1
    assert scores["ndcg@3"]["q2"] == pytest.approx(0.5)
    assert scores["ndcg@5"]["q2"] == pytest.approx(0.5)


def test_mrr_and_map_by_hand(scores: dict[str, dict[str, float]]) -> None:
    assert scores["mrr@5"]["q1"] == 1.0
    assert scores["mrr@5"]["q2"] == pytest.approx(1 / 3)
    # q1: precision at each relevant rank (1, 3, 5) = 1/1, 2/3, 3/5, over 3 relevant
    assert scores["map@5"]["q1"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)  # 0.7556
    assert scores["map@5"]["q2"] == pytest.approx(1 / 3)


def test_queries_that_found_nothing_still_count_as_zero(
        scores: dict[str, dict[str, float]]) -> None:
    for metric, per_query in scores.items():
        assert set(per_query) == {"q1", "q2", "q3", "q4", "q5"}, metric
        assert per_query["q3"] == per_query["q4"] == per_query["q5"] == 0.0, metric
    result = result_from_run(QUERIES, RetrievalRun.from_ranked(RANKED), ks=(3, 5))
    # the means divide by all 5 queries: recall@3 = (2/3 + 1 + 0 + 0 + 0) / 5
    assert result.mean("recall@3") == pytest.approx((2 / 3 + 1) / 5)
    assert result.mean("mrr@5") == pytest.approx((1 + 1 / 3) / 5)


def test_search_order_is_kept_and_a_repeated_id_counts_once() -> None:
    queries = [Query("q", "x", {"b": 1})]
    # search order is the order: "z" before "b"
    assert score_queries(queries, {"q": ["z", "b"]}, ks=(2,))["mrr@2"]["q"] == 0.5
    twice = score_queries(queries, {"q": ["b", "b", "c"]}, ks=(2,))
    assert twice["precision@2"]["q"] == 0.5  # b once, then c


def test_empty_query_set_gives_empty_scores() -> None:
    assert score_queries([], {}, ks=(5,)) == {m: {} for m in metric_names((5,))}


def test_a_set_where_nothing_was_retrieved_scores_zero() -> None:
    # the wrong store, tenant or filter: no query found anything
    nothing = score_queries(QUERIES[:2], {}, ks=(3,))
    assert nothing == {m: {"q1": 0.0, "q2": 0.0} for m in metric_names((3,))}


def test_confidence_intervals_stay_within_zero_and_one() -> None:
    queries = [Query("a", "x", {"m": 1}), Query("b", "y", {"m": 1}), Query("c", "z", {"m": 1})]
    result = result_from_run(queries, RetrievalRun.from_ranked({"a": ["m"], "b": ["m"]}),
                             ks=(1,))
    row = result.summary.filter(result.summary["metric"] == "recall@1").to_dicts()[0]
    # mean 2/3, sd 0.577, t(0.975, 2) = 4.303: the raw interval is [-0.768, 2.101]
    assert row["mean"] == pytest.approx(2 / 3)
    assert (row["ci_low"], row["ci_high"]) == (0.0, 1.0)
