"""`memlens bench mcp` on a small store, its clients run for 2 s: every figure is there, with
its target and ratio, and the concurrent clients lose nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.bench.mcp import McpBench, p95, run_mcp_bench
from tests.memory_core.agents.mcp.clients import seed


def test_p95_is_the_nearest_rank() -> None:
    assert p95([]) == 0.0
    assert p95([3.0]) == 3.0
    assert p95([float(i) for i in range(1, 21)]) == 19.0  # rank ceil(0.95 * 20) = 19


@pytest.mark.slow
def test_the_bench_reports_every_figure_against_its_target(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # the server processes inherit it
    path = tmp_path / "store"
    seed(path, "default", [("the memory store is LanceDB", "decision"),
                           ("agents recall before they decide", "lesson")])
    queries = ["memory store", "what do agents do first", "LanceDB"]
    result = run_mcp_bench(str(path), queries, seconds=2)
    assert isinstance(result, McpBench)
    assert (result.errors, result.lost_writes) == (0, 0)
    assert result.clients_remembers >= 1 and result.clients_recalls >= 3
    assert result.memories == 2 and result.queries == 3
    lines = "\n".join(result.lines())
    for label in ("recall round trip p95", "remember p95", "start to first answered call",
                  "of which importing lancedb + mcp", "4 clients for 2 s"):
        assert label in lines
    assert set(result.to_dict()["ratios"]) == {"recall", "remember", "start"}
    # the imports are a part of the start, measured in the same run
    assert result.imports_s > 0


def _figures(start_s: float, imports_s: float) -> McpBench:
    return McpBench(memories=1, queries=1, in_process_recall_p95_ms=10.0, recall_p95_ms=12.0,
                    remember_p95_ms=50.0, start_s=start_s, imports_s=imports_s, clients_s=1.0,
                    clients_recalls=1, clients_remembers=1, clients_recall_p95_ms=1.0,
                    clients_remember_p95_ms=1.0, errors=0, lost_writes=0)


def test_the_start_target_is_3_s_unless_the_import_floor_alone_nears_it() -> None:
    fast = _figures(start_s=2.5, imports_s=1.0)
    assert fast.start_target_s == 3.0 and fast.ratios()["start"] < 1
    assert _figures(start_s=3.5, imports_s=1.0).ratios()["start"] > 1
    slow = _figures(start_s=4.0, imports_s=3.0)  # the SDKs alone take 3 s to import here
    assert slow.start_target_s == pytest.approx(4.5)
    assert slow.ratios()["start"] < 1
    assert _figures(start_s=5.0, imports_s=3.0).ratios()["start"] > 1  # memlens added 2 s
    assert "memlens own share" in "\n".join(slow.lines())
