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
