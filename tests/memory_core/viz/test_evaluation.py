"""Figures of retrieval evaluation, built from the hand-made comparison in `cases.py`."""

from __future__ import annotations

import math
from dataclasses import replace

import polars as pl
import pytest

from memory_core.evaluation import Comparison, compare_results
from memory_core.viz.evaluation import (
    OUTCOME_COLOURS,
    metrics_bar,
    per_query_delta,
    tag_heatmap,
    win_tie_loss_bar,
)
from tests.memory_core.evaluation.cases import pair


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return compare_results(*pair())


def test_metrics_bar_has_one_trace_per_config_with_intervals(comparison: Comparison) -> None:
    fig = metrics_bar([comparison.baseline, comparison.candidate], metrics=["mrr@2", "ndcg@2"])
    assert [t.name for t in fig.data] == ["base", "cand"]
    assert list(fig.data[0].x) == ["mrr@2", "ndcg@2"]
    assert list(fig.data[0].y) == pytest.approx([0.625, (1 + 1 / math.log2(3) + 0 + 1) / 4])
    row = comparison.baseline.summary.filter(pl.col("metric") == "mrr@2").row(0, named=True)
    assert fig.data[0].error_y.array[0] == pytest.approx(row["ci_high"] - 0.625)
    assert fig.data[0].error_y.arrayminus[0] == pytest.approx(0.625 - row["ci_low"])
    assert fig.layout.barmode == "group"
    stacked = pl.concat([comparison.baseline.summary, comparison.candidate.summary])
    assert [t.name for t in metrics_bar(stacked).data] == ["base", "cand"]


def test_per_query_delta_is_sorted_worst_first_and_coloured(comparison: Comparison) -> None:
    fig = per_query_delta(comparison, metric="mrr@2")
    bar = fig.data[0]
    assert list(bar.x) == ["q4", "q1", "q2", "q3"]
    assert list(bar.y) == pytest.approx([-0.5, 0.0, 0.5, 0.5])
    assert list(bar.marker.color) == [OUTCOME_COLOURS[o] for o in ("loss", "tie", "win", "win")]
    assert "2 wins, 1 ties, 1 losses" in fig.layout.title.text
    assert bar.customdata[0][0] == "delta question"
    assert list(per_query_delta(comparison, metric="mrr@2", top=1).data[0].x) == ["q4"]


def test_win_tie_loss_bar_stacks_the_three_outcomes(comparison: Comparison) -> None:
    fig = win_tie_loss_bar(comparison)
    assert [t.name for t in fig.data] == ["win", "tie", "loss"]
    labels = list(fig.data[0].y)
    assert labels[-1] == comparison.metrics[0]  # the first metric on top
    mrr = labels.index("mrr@2")
    assert (fig.data[0].x[mrr], fig.data[1].x[mrr], fig.data[2].x[mrr]) == (2, 1, 1)
    assert fig.layout.barmode == "stack"


def test_tag_heatmap_of_a_comparison_and_of_a_result(comparison: Comparison) -> None:
    fig = tag_heatmap(comparison, metrics=["mrr@2", "hit_rate@1"])
    heat = fig.data[0]
    # ndcg@2 is not shown, so rows follow the first metric shown: tag a (+1/4) then b (+1/2)
    assert list(heat.y) == ["a (2)", "b (2)"] and list(heat.x) == ["mrr@2", "hit_rate@1"]
    # hit_rate@1: a = q1, q2: 1/2 -> 1; b = q2, q3: 0 -> 1/2
    assert [v for row in heat.z for v in row] == pytest.approx([0.25, 0.5, 0.5, 0.5])
    assert heat.zmid == 0.0  # diverging around "no change"
    single = tag_heatmap(comparison.baseline).data[0]
    assert single.zmin == 0.0 and single.zmax == 1.0
    assert list(single.x) == list(comparison.metrics)


def test_empty_inputs_give_empty_figures() -> None:
    assert metrics_bar([]).data == ()
    baseline, candidate = pair()
    untagged = compare_results(replace(baseline, by_tag=baseline.by_tag.clear()),
                               replace(candidate, by_tag=candidate.by_tag.clear()))
    fig = tag_heatmap(untagged)
    assert list(fig.data[0].y) == []
