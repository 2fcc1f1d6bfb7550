"""`memlens bench graph` on tiny stores: the stores are as described, every figure and ratio
is printed, mistakes in the sizes are one line. Never timings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.bench.graph import (
    FANOUT,
    HEALTH_TARGET_S,
    REPEATS,
    WARMUP,
    run_graph_bench,
    wired_edges,
)
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli


def test_wired_edges_make_a_tree_then_random_pairs() -> None:
    ids = [f"m{i}" for i in range(30)]
    edges = wired_edges(ids, 60, tenant="default")
    pairs = [frozenset((e.source_id, e.target_id)) for e in edges]
    assert len(edges) == 60 and len(set(pairs)) == 60  # no pair twice, no self loop
    # the tree: memory i hangs under memory (i - 1) // FANOUT
    assert pairs[:29] == [frozenset((f"m{(i - 1) // FANOUT}", f"m{i}")) for i in range(1, 30)]
    with pytest.raises(ValueError, match="give at least 29"):
        wired_edges(ids, 28, tenant="default")


def test_bench_builds_both_stores_and_prints_every_figure(
        tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    result = run_graph_bench(500, edges=60, nodes=40, node_edges=90, calls=7,
                             embedder=fake_embedder, folder=tmp_path)
    # 3 hops from the root of a fan-out-10 tree reach all 40 memories, and every edge
    assert (result.nodes, result.node_edges) == (40, 90)
    assert (result.neighbourhood_nodes, result.neighbourhood_edges) == (40, 90)
    large = MemoryStore.open(str(tmp_path / "large"), embedder=fake_embedder)
    assert large.edges.count() == result.edges and 0 < result.edges <= 60
    assert result.findings["orphans"] > 0 and result.why_calls == 7
    assert set(result.ratios()) == {"neighbourhood_html", "health", "why_p95", "why_all_p95"}
    assert result.ratios()["health"] == result.health_s / HEALTH_TARGET_S
    lines = result.lines()
    assert result.why_all.p50_ms >= result.why.p50_ms  # the lineage is part of it
    for label in ("neighbourhood + HTML", "graph_health", "why (lineage, depth 3)",
                  "  + chain + contradictions"):
        (line,) = [x for x in lines if x.startswith(label)]
        assert "target <=" in line and "ratio" in line and ("PASS" in line or "FAIL" in line)
    assert any(f"; medians of {REPEATS})" in x for x in lines)
    assert any("over 7 memories with edges" in x for x in lines)
    assert WARMUP >= 1


def test_cli_prints_every_figure_with_its_ratio_as_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # nothing is embedded
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["bench", "graph", "--memories", "300", "--edges", "40", "--nodes",
                            "20", "--node-edges", "30", "--calls", "3", "--json"], capsys)
    figures = json.loads(out)
    assert code == 0 and (figures["memories"], figures["nodes"], figures["why_calls"]) == (
        300, 20, 3)
    assert figures["neighbourhood_nodes"] == 20
    assert set(figures["ratios"]) == set(figures["within_target"]) == {
        "neighbourhood_html", "health", "why_p95", "why_all_p95"}
    assert figures["ratios"]["why_p95"] == (figures["why"]["p95_ms"]
                                            / figures["targets"]["why_p95_ms"])
    assert figures["page_s"] == figures["neighbourhood_s"] + figures["html_s"]
    assert figures["html_chars"] > 0


@pytest.mark.parametrize("argv, message", [
    (["--nodes", "100", "--node-edges", "50"], "at least --nodes - 1 (99)"),
    (["--nodes", "4", "--node-edges", "7"], "at most 6"),
    (["--memories", "1"], "Invalid value for '--memories'"),
])
def test_sizes_that_cannot_work_are_one_line(argv: list[str], message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["bench", "graph", *argv], capsys)
    assert code == 1 and message in err
    assert len(err.strip().splitlines()) == 1
