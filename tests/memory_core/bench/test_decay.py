"""`memlens bench decay` on a tiny store: the store is as described and every figure and
ratio is printed. Never timings."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from memory_core.bench.decay import (
    AS_OF,
    AT_RISK_TARGET_S,
    CITE_SHARE,
    EVENT_DAYS,
    run_decay_bench,
)
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli


def test_bench_builds_the_store_and_reports_every_figure(
        tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    result = run_decay_bench(2000, events=400, embedder=fake_embedder, folder=tmp_path)
    store = MemoryStore.open(str(tmp_path / "store"), embedder=fake_embedder)
    assert store.count() == result.active and 1800 <= result.active < 2000  # ~95% active
    events = store.events.query()
    assert len(events) == result.events == 400
    cites = sum(e.event_kind == "cite" for e in events)
    assert 0.1 * 400 < cites < 0.3 * 400  # about CITE_SHARE
    assert CITE_SHARE == 0.2
    assert all(AS_OF - timedelta(days=EVENT_DAYS) <= e.at <= AS_OF for e in events)
    assert set(result.ratios()) == {"frame", "at_risk", "what_if"}
    assert result.ratios()["at_risk"] == result.at_risk_s / AT_RISK_TARGET_S
    lines = result.lines()
    for label in ("decay_frame over", "at_risk (within 30 days)", "what_if (2 params"):
        (line,) = [x for x in lines if x.startswith(label)]
        assert "target <=" in line and "ratio" in line and ("PASS" in line or "FAIL" in line)
    assert any(x.startswith("memory_timeline") for x in lines)


def test_cli_prints_the_figures_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # nothing is embedded
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["bench", "decay", "--memories", "500", "--events", "50",
                            "--json"], capsys)
    figures = json.loads(out)
    assert code == 0 and (figures["memories"], figures["events"]) == (500, 50)
    assert set(figures["ratios"]) == set(figures["within_target"]) == {
        "frame", "at_risk", "what_if"}
    assert figures["ratios"]["frame"] == figures["frame_s"] / figures["targets_s"]["frame"]


def test_a_bad_size_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["bench", "decay", "--memories", "0"], capsys)
    assert code == 1 and "Invalid value for '--memories'" in err
