"""`memlens bench search`: the targets by store size, the figures it prints, one small real run.
Never timings: only that every figure is there, with its target and verdict."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from memory_core.bench.search import (
    NO_CONTEXT,
    PRESET_NAMES,
    Latency,
    SearchBench,
    run_search_bench,
    search_targets,
)


def _bench(n: int, p95: float, *, recall: float | None, peak: float) -> SearchBench:
    lat = Latency(p95 / 2, p95, p95 * 1.5, p95 / 2)
    targets = search_targets(n)
    return SearchBench(
        n=n, edges=n // 10, queries=1, dimension=16, write_seconds=1.0, index_seconds=2.0,
        vector_index_seconds=None if recall is None else 1.5, recall_at_10=recall,
        query_embedding=lat, presets={name: lat for name in [*PRESET_NAMES, NO_CONTEXT]},
        raw_hybrid=lat, hybrid_ratio=1.0, graph_hit_rate=0.5,
        hybrid_ok=p95 <= targets.hybrid_p95_ms, full_ok=p95 <= targets.full_p95_ms,
        ratio_ok=True, peak_memory_gib=peak, targets=targets,
        recall_ok=None if recall is None else recall >= targets.recall_at_10,
        memory_ok=peak <= targets.peak_memory_gib, vector_rule="a rule, in words")


def test_a_million_memories_are_held_to_the_large_store_targets() -> None:
    small, large = search_targets(100_000), search_targets(1_000_000)
    assert (small.hybrid_p95_ms, small.full_p95_ms) == (60.0, 100.0)
    assert (large.hybrid_p95_ms, large.full_p95_ms) == (80.0, 120.0)
    assert large.recall_at_10 == small.recall_at_10 == 0.95
    assert large.peak_memory_gib == 8.0


def test_the_lines_give_each_figure_with_its_target_ratio_and_verdict() -> None:
    text = "\n".join(_bench(1_000_000, 70.0, recall=0.97, peak=5.0).lines())
    assert "hybrid p95 70.0 ms (target <= 80, ratio 0.88) PASS" in text
    assert "full p95 70.0 ms (target <= 120, ratio 0.58) PASS" in text
    assert "recall@10 0.970 (target >= 0.95) PASS" in text
    assert "peak memory 5.00 GiB (target <= 8, ratio 0.62) PASS" in text
    assert "rule: a rule, in words" in text
    bad = "\n".join(_bench(1_000_000, 130.0, recall=0.90, peak=9.0).lines())
    assert "recall@10 0.900 (target >= 0.95) FAIL" in bad
    assert "peak memory 9.00 GiB (target <= 8, ratio 1.12) FAIL" in bad
    assert "full p95 130.0 ms (target <= 120, ratio 1.08) FAIL" in bad
    exact = "\n".join(_bench(1000, 10.0, recall=None, peak=1.0).lines())
    assert "no vector index (exact search)" in exact and "target <= 60" in exact


def test_the_json_holds_the_targets_it_was_held_to() -> None:
    data = json.loads(json.dumps(_bench(1_000_000, 70.0, recall=0.97, peak=5.0).to_dict()))
    assert data["targets"]["hybrid_p95_ms"] == 80.0 and data["recall_ok"] is True
    assert data["peak_memory_gib"] == 5.0 and data["memory_ok"] is True


@pytest.mark.slow
@pytest.mark.model
def test_a_small_run_reports_every_preset_and_its_peak_memory() -> None:
    result = run_search_bench(1500, queries=3, edges=100)
    assert result.n == 1500 and result.queries == 3 and result.edges > 0
    assert set(result.presets) == {*PRESET_NAMES, NO_CONTEXT}
    assert result.recall_at_10 is None and result.recall_ok is None  # exact below 20,000
    assert "1,500 vectors < the threshold 20,000" in result.vector_rule
    assert 0.1 < result.peak_memory_gib < 8 and result.memory_ok
    assert result.targets == search_targets(1500)
    assert replace(result, n=1500).to_dict()["targets"]["full_p95_ms"] == 100.0
