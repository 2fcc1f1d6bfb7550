"""`memlens bench consolidate` on a small store and the demo (fake embedder): every figure
and ratio printed, and the stores left as the steps say (the candidates accepted as
reflections, the demo untouched by the impact preview and the purges). Never timings."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.bench.consolidate import CONSOLIDATIONS, run_consolidate_bench
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.seeding import seed_from_export
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

pytestmark = pytest.mark.slow


def test_bench_prints_each_figure_against_its_target(tmp_path: Path,
                                                     fake_embedder: FakeEmbedder) -> None:
    result = run_consolidate_bench(seed_from_export, 600, sources=3, embedder=fake_embedder,
                                   folder=tmp_path)
    assert result.candidates > 0 and result.consolidations == min(CONSOLIDATIONS,
                                                                  result.candidates)
    store = MemoryStore.open(str(tmp_path / "store"), embedder=fake_embedder)
    # the synthetic store copies the demo's types (reflections too): the bench's have a
    # candidate id
    reflections = [r for r in store.list(Filter(memory_type="reflection"), limit=None)
                   if r.metadata.get("candidate")]
    assert len(reflections) == result.consolidations
    assert {r.metadata["method"] for r in reflections} == {"rule_based"}
    demo = MemoryStore.open(str(tmp_path / "demo" / "store"), embedder=fake_embedder)
    # the preview ran on a scratch copy and the purges on copies: the demo is as seeded
    assert demo.count(Filter(memory_type="reflection", status=STATUSES)) == 111
    assert demo.count(Filter(status=STATUSES)) == result.demo_memories
    assert result.purge_sources == 3 and result.purge_ids > 3
    assert result.impact_queries > 0
    lines = result.lines()
    for label in ("candidates (", "one consolidate", "impact preview", "+ derived"):
        (line,) = [x for x in lines if label in x]
        assert "target <=" in line and "ratio" in line and ("PASS" in line or "FAIL" in line)
    doc = result.to_dict()
    assert set(doc["ratios"]) == {"candidates", "consolidate", "impact", "purge_with_derived"}
    assert doc["purge_ratio"] == pytest.approx(result.purge_with_derived_s
                                               / result.purge_plain_s)


def test_the_command_refuses_a_tiny_store(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["bench", "consolidate", "--memories", "10"], capsys)
    assert code == 1 and "'--memories': 10 is not in the range x>=100" in err
