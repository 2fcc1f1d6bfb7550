"""Comparison of two runs worked out by hand (see `cases.py` for the table)."""

from __future__ import annotations

import json
import math
from typing import Any

import polars as pl
import pytest

from memory_core.evaluation import (
    Comparison,
    Query,
    RetrievalRun,
    compare_results,
    result_from_run,
)
from memory_core.model.errors import InvalidConfigError
from tests.memory_core.evaluation.cases import CANDIDATE, KS, QUERIES, pair


def t3_two_sided_p(t: float) -> float:
    """Two-sided p of Student's t with 3 degrees of freedom, from its closed-form CDF:
    F(t) = 1/2 + (1/pi) * (u / (1 + u**2) + atan(u)) with u = t / sqrt(3)."""
    u = abs(t) / math.sqrt(3)
    return 1 - (2 / math.pi) * (u / (1 + u * u) + math.atan(u))


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    baseline, candidate = pair()
    return compare_results(baseline, candidate)


def _row(frame: pl.DataFrame, **where: object) -> dict[str, Any]:
    rows = [r for r in frame.iter_rows(named=True) if all(r[k] == v for k, v in where.items())]
    assert len(rows) == 1, where
    return rows[0]


def test_means_deltas_and_win_tie_loss(comparison: Comparison) -> None:
    mrr = _row(comparison.summary, metric="mrr@2")
    # baseline (1 + 1/2 + 0 + 1) / 4, candidate (1 + 1 + 1/2 + 1/2) / 4
    assert mrr["baseline"] == pytest.approx(0.625) and mrr["candidate"] == pytest.approx(0.75)
    assert mrr["delta"] == pytest.approx(0.125)
    assert (mrr["wins"], mrr["ties"], mrr["losses"]) == (2, 1, 1)
    hit1 = _row(comparison.summary, metric="hit_rate@1")  # [1,0,0,1] -> [1,1,0,0]
    assert (hit1["wins"], hit1["ties"], hit1["losses"]) == (1, 2, 1)
    assert comparison.win_tie_loss.columns == ["metric", "wins", "ties", "losses"]
    assert comparison.summary["metric"].to_list() == list(comparison.metrics)


def test_paired_t_test_p_values_by_hand(comparison: Comparison) -> None:
    # mrr@2 deltas d = [0, 1/2, 1/2, -1/2]: mean 1/8, sample sd sqrt(0.6875 / 3),
    # t = mean / (sd / sqrt(4)) = 0.5222
    sd = math.sqrt(((0 - .125) ** 2 + 2 * (.5 - .125) ** 2 + (-.5 - .125) ** 2) / 3)
    t = 0.125 / (sd / 2)
    assert _row(comparison.summary, metric="mrr@2")["p_value"] == pytest.approx(
        t3_two_sided_p(t))  # 0.6376
    # recall@2 deltas [0, 0, 1, 0]: mean 1/4, sd 1/2, t = 1 -> p = 2/3 - sqrt(3)/(2 pi)
    assert _row(comparison.summary, metric="recall@2")["p_value"] == pytest.approx(
        2 / 3 - math.sqrt(3) / (2 * math.pi))  # 0.3910
    # hit_rate@1 deltas [0, 1, 0, -1]: mean 0, t = 0 -> p = 1
    assert _row(comparison.summary, metric="hit_rate@1")["p_value"] == pytest.approx(1.0)
    assert not any(comparison.summary["significant"].to_list())
    assert set(comparison.summary["marker"].to_list()) == {""}


def test_identical_runs_get_p_one_and_only_ties() -> None:
    baseline, _ = pair()
    same = compare_results(baseline, baseline)
    assert same.summary["p_value"].to_list() == [1.0] * len(same.metrics)
    assert same.summary["ties"].to_list() == [4] * len(same.metrics)


def test_a_clear_improvement_is_marked_significant() -> None:
    queries = [Query(f"q{i}", "x", {"r": 1}) for i in range(8)]
    worse = {q.qid: ["x", "r"] for q in queries}       # mrr 1/2 everywhere
    better = {q.qid: ["r", "x"] for q in queries}      # mrr 1 everywhere
    better["q0"] = ["x", "r"]                           # one tie, so the sd is not 0
    a = result_from_run(queries, RetrievalRun.from_ranked(worse), ks=(2,), name="a")
    b = result_from_run(queries, RetrievalRun.from_ranked(better), ks=(2,), name="b")
    row = _row(compare_results(a, b, alpha=0.05).summary, metric="mrr@2")
    # d = [0, 1/2 x 7]: mean 7/16, sd sqrt((49/256 + 7/256) / 7) = sqrt(1/32),
    # t = (7/16) / (sqrt(1/32) / sqrt(8)) = 7 with 7 degrees of freedom: p = 2.1e-4
    assert row["p_value"] < 0.001 and row["significant"] and row["marker"] == "*"
    assert (row["wins"], row["ties"], row["losses"]) == (7, 1, 0)


def test_per_query_is_sorted_worst_regression_first(comparison: Comparison) -> None:
    mrr = comparison.per_query.filter(comparison.per_query["metric"] == "mrr@2")
    assert mrr["qid"].to_list() == ["q4", "q1", "q2", "q3"]
    assert mrr["delta"].to_list() == pytest.approx([-0.5, 0.0, 0.5, 0.5])
    assert mrr["outcome"].to_list() == ["loss", "tie", "win", "win"]
    worst = comparison.worst(5, metric="mrr@2")
    assert worst["qid"].to_list() == ["q4"] and worst["query"].to_list() == ["delta question"]
    assert comparison.primary == "ndcg@2"


def test_by_tag_means_and_deltas(comparison: Comparison) -> None:
    mrr = comparison.by_tag.filter(comparison.by_tag["metric"] == "mrr@2")
    # tag a = q1, q2: 3/4 -> 1; tag b = q2, q3: 1/4 -> 3/4; q4 has no tag
    assert mrr["tag"].to_list() == ["a", "b"]  # smaller delta first
    assert mrr["n"].to_list() == [2, 2]
    assert mrr["baseline"].to_list() == pytest.approx([0.75, 0.25])
    assert mrr["candidate"].to_list() == pytest.approx([1.0, 0.75])
    assert mrr["delta"].to_list() == pytest.approx([0.25, 0.5])


@pytest.mark.parametrize("stat_test", ["fisher", "tukey"])
def test_other_tests_give_p_values(stat_test: str) -> None:
    baseline, candidate = pair()
    cmp = compare_results(baseline, candidate, stat_test=stat_test)
    p = _row(cmp.summary, metric="mrr@2")["p_value"]
    assert 0.0 < p <= 1.0 and cmp.stat_test == stat_test


def test_mismatched_results_and_bad_options_are_refused() -> None:
    baseline, candidate = pair()
    other_k = result_from_run(QUERIES, candidate.run, ks=(1, 3), name="k3")
    with pytest.raises(InvalidConfigError, match="cut-offs"):
        compare_results(baseline, other_k)
    fewer = result_from_run(QUERIES[:3], candidate.run, ks=KS, name="three")
    with pytest.raises(InvalidConfigError, match="different query sets"):
        compare_results(baseline, fewer)
    with pytest.raises(InvalidConfigError, match="student, fisher, tukey"):
        compare_results(baseline, candidate, stat_test="wilcoxon")
    with pytest.raises(InvalidConfigError, match="alpha"):
        compare_results(baseline, candidate, alpha=1.5)
    assert set(CANDIDATE) == {q.qid for q in QUERIES}


def test_to_dict_is_plain_data(comparison: Comparison) -> None:
    doc = comparison.to_dict(worst=2)
    assert json.loads(json.dumps(doc)) == doc
    assert doc["baseline"] == "base" and doc["candidate"] == "cand"
    # ndcg@2: q4 falls from 1 to 1/log2(3); every other query ties or gains
    assert [w["qid"] for w in doc["worst"]] == ["q4"]
    assert doc["worst"][0]["delta"] == pytest.approx(1 / math.log2(3) - 1)


def test_a_run_that_found_nothing_is_compared_not_a_crash() -> None:
    baseline = result_from_run(QUERIES, RetrievalRun.from_ranked({}), ks=KS, name="empty")
    candidate = result_from_run(QUERIES, RetrievalRun.from_ranked(CANDIDATE), ks=KS,
                                name="cand")
    mrr = _row(compare_results(baseline, candidate).summary, metric="mrr@2")
    # candidate mrr@2 per query [1, 1, 1/2, 1/2] against all zeros: 4 wins, t = 0.75 / (sd / 2)
    assert (mrr["baseline"], mrr["candidate"]) == (0.0, pytest.approx(0.75))
    assert (mrr["wins"], mrr["ties"], mrr["losses"]) == (4, 0, 0)
    sd = math.sqrt((2 * (1 - .75) ** 2 + 2 * (.5 - .75) ** 2) / 3)
    assert mrr["p_value"] == pytest.approx(t3_two_sided_p(0.75 / (sd / 2)))
