"""AppTest of the Decay page on a real LanceDB store embedded by the fake embedder, at a fixed
decay clock: the counts below the threshold (worked out by hand from R(t) = (1 + 0.235 t /
S) ** -0.5), the what-if sliders and the clock change them; the at-risk table lists the
memories about to fall below and opens one; a memory's timeline shows its events; a query
ranked with and without decay; empty, filtered-out and read-only stores; hostile content
stays text."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.model.records import Edge, Event, Memory
from memory_core.store import MemoryStore
from tests.app.inert import check_page, plain
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "memlens_app" / "main.py")
PAGE = "page_scripts/decay.py"
DAY = date(2026, 6, 1)
CLOCK = datetime(2026, 6, 1, tzinfo=UTC)  # the decay clock: midnight UTC of DAY
IMG = "<img src=x onerror=alert(1)>"
BIDI = "safe\u202etxt.exe"
HOSTILE = (f"<script>alert(1)</script> {IMG} \x1b[31mred\x1b[0m {BIDI} [link](http://evil.example) "
           f":red[alert] observation about load")
SHOWN_BIDI = "safe<U+202E>txt.exe"


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Memories whose composite at CLOCK is known (normal tier: anchor 1, usage 1 unless
    recalled), S being the type's default: observation 30 d, session_summary 14 d, fact
    90 d, decision 120 d. An observation falls below 0.5 after 30 / 0.235 * 3 = 383 days."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)

    def new(id: str, content: str, memory_type: str, days: int, **fields: Any) -> Memory:
        return Memory.new(content, memory_type, id=id, project="atlas",
                          created_at=CLOCK - timedelta(days=days), **fields)

    store.add([
        new("gone", "Redis evicted session keys under load", "observation", 500),  # 0.451
        new("fading", "The staging database ran out of connections", "observation",
            370),  # 0.506: below in 13 days
        new("hostile", HOSTILE, "observation", 375),  # 0.504: below in 8 days
        new("session", "Monday session about the billing migration", "session_summary",
            150),  # 0.533: below in 14 / 0.235 * 3 - 150 = 28.7 days
        new("fresh", "Cache sessions in Postgres instead of Redis", "decision", 10),
        new("rule", "Never store customer secrets in memories", "principle", 800,
            importance="constitutional"),
        new("cited", "Postgres handles the session table fine", "fact", 100),
    ])
    store.record_access(["cited"], at=CLOCK - timedelta(days=20), query="session storage")
    store.events.record([Event.new("cite", "cited", at=CLOCK - timedelta(days=3),
                                   actor="agent-7", query="which store for sessions?")])
    store.edges.add([Edge.new("cited", "fresh", "supports", strength=0.8)])
    store.fts.ensure()
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _open(*, focus: str | None = None, clock: date = DAY) -> AppTest:
    """The Decay page through the router at `clock`; with `focus`, handed over."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    if focus is not None:
        at.session_state["decay_focus"] = focus
    at.switch_page(PAGE).run()
    at.date_input(key="decay_as_of").set_value(clock).run()
    assert not at.exception, at.exception
    return at


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _deltas(at: AppTest) -> dict[str, str | None]:
    return {m.label: m.delta for m in at.metric}


def _table(at: AppTest, key: str) -> Any:
    """The table of `key` (AppTest keys only selectable tables) or with a column `key`."""
    [table] = [d for d in at.dataframe if d.key == key] or [
        d for d in at.dataframe if key in d.value.columns]
    return table.value


def _select(at: AppTest, key: str, row: int) -> None:
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, at.exception


def _text(at: AppTest) -> str:
    return "\n".join(plain(e.value) for e in [*at.markdown, *at.caption, *at.info,
                                              *at.warning])


def test_counts_below_the_threshold_now_and_ahead(store: MemoryStore) -> None:
    at = _open()
    assert at.header[0].value == "Decay"
    counts = _metrics(at)
    # now: gone; in 30 and 90 days: fading, hostile and session too
    assert counts["current · now"] == "1" and counts["what-if · now"] == "1"
    assert counts["current · 30 d"] == "4" and counts["current · 90 d"] == "4"
    assert not _deltas(at)["what-if · now"]  # nothing changed yet
    assert "7 memories at 2026-06-01 · 1 below 0.5 · 1 constitutional" in _text(at)
    groups = _table(at, "in 30 days what-if")
    observation = groups[groups["group"] == "observation"].iloc[0]
    assert observation["now current"] == 1 and observation["in 30 days current"] == 3


def test_what_if_sliders_change_the_counts_not_the_store(store: MemoryStore) -> None:
    before = store.table_versions()
    at = _open()
    # S doubled: gone's R at 500 days is (1 + 0.235 * 500 / 60) ** -0.5 = 0.581, above 0.5;
    # in 30 days fading (0.624) and session (0.631) stay above too; hostile 0.620
    at.slider(key="decay_wi_stability_scale").set_value(2.0).run()
    counts, deltas = _metrics(at), _deltas(at)
    assert counts["current · now"] == "1" and counts["what-if · now"] == "0"
    assert deltas["what-if · now"] == "-1"
    assert counts["what-if · 30 d"] == "0" and deltas["what-if · 30 d"] == "-4"
    assert "What-if: Stability scale 1 → 2" in _text(at)
    # a lower anchor for normal memories pushes them down: 0.6 x 0.533 (session) < 0.5
    at.button(key="decay_wi_reset").click().run()
    assert _metrics(at)["what-if · now"] == "1"
    at.slider(key="decay_wi_anchor_normal").set_value(0.6).run()
    # all but fresh (0.6 x 0.990 = 0.594), rule and cited (0.6 x R 0.975 x usage 1.069 x
    # citation 1.1 = 0.688)
    assert _metrics(at)["what-if · now"] == "4" and _deltas(at)["what-if · now"] == "3"
    assert store.table_versions() == before  # the sliders wrote nothing


def test_the_clock_changes_the_numbers(store: MemoryStore) -> None:
    at = _open()
    assert _metrics(at)["current · now"] == "1"
    at.date_input(key="decay_as_of").set_value(DAY + timedelta(days=60)).run()
    assert _metrics(at)["current · now"] == "4"  # fading, hostile and session have fallen
    at.date_input(key="decay_as_of").set_value(DAY - timedelta(days=200)).run()
    assert _metrics(at)["current · now"] == "0"  # before most of them were written


def test_threshold_changes_the_counts(store: MemoryStore) -> None:
    at = _open()
    at.slider(key="decay_threshold").set_value(0.55).run()
    # 0.55: gone, fading, hostile and session are below already
    assert _metrics(at)["current · now"] == "4"


def test_at_risk_lists_the_memories_about_to_fall_below(store: MemoryStore) -> None:
    at = _open()
    risk = _table(at, "decay_risk_table")
    # all normal tier: sooner first (hostile 8 d, fading 13 d, session 28.7 d)
    assert list(risk["id"]) == ["hostile", "fading", "session"]
    assert list(risk["in days"]) == pytest.approx([8.0, 13.0, 28.7], abs=0.06)
    assert str(risk["falls below on"].iloc[1])[:10] == "2026-06-13"  # 12.98 days ahead
    assert ("3 memories fall below 0.5 within 30 days of 2026-06-01 unless recalled · 1 are "
            "below it already · 1 constitutional memories never decay") in _text(at)
    at.slider(key="decay_within").set_value(10).run()
    assert list(_table(at, "decay_risk_table")["id"]) == ["hostile"]
    at.slider(key="decay_within").set_value(30).run()
    at.text_input(key="decay_contains").input("STAGING").run()
    assert list(_table(at, "decay_risk_table")["id"]) == ["fading"]


def test_a_selected_row_opens_the_memory_and_its_timeline(store: MemoryStore) -> None:
    at = _open()
    _select(at, "decay_risk_table", 1)
    assert "The staging database ran out of connections" in [t.value for t in at.text]
    at.button(key="decay_risk_timeline").click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="decay_memory_id").value == "fading"
    assert at.session_state["decay_tab"] == "One memory"
    at.button(key="detail_close").click().run()
    assert not [d for d in at.dataframe if d.key == "detail_fields"]


def test_the_selection_goes_when_the_rows_change(store: MemoryStore) -> None:
    at = _open()
    _select(at, "decay_risk_table", 2)
    assert "Monday session about the billing migration" in [t.value for t in at.text]
    at.slider(key="decay_within").set_value(20).run()  # session (28.7 days) leaves the list
    assert list(_table(at, "decay_risk_table")["id"]) == ["hostile", "fading"]
    assert not [b for b in at.button if b.key == "decay_risk_timeline"]  # nothing open


def test_timeline_of_a_recalled_and_cited_memory(store: MemoryStore) -> None:
    at = _open(focus="cited")
    assert at.text_input(key="decay_memory_id").value == "cited"
    assert "decay_focus" not in at.session_state  # taken once
    metrics = _metrics(at)
    assert metrics["Recalls"] == "1" and metrics["Cites"] == "1"
    events = _table(at, "resets R")
    assert list(events["event"])[:2] == ["cite", "recall"]  # newest first
    assert "created" in list(events["event"])
    assert bool(events[events["event"] == "recall"]["resets R"].iloc[0])
    [chart] = [c for c in at.get("plotly_chart") if "decay_timeline" in str(c.proto.id)]
    assert '"name":"recall"' in chart.proto.spec.replace(" ", "")


def test_timeline_of_a_constitutional_memory_and_of_an_unknown_id(store: MemoryStore) -> None:
    at = _open(focus="rule")
    assert any("never decays" in i.value for i in at.info)
    assert _metrics(at)["Below 0.5 on"] == "never"
    at.text_input(key="decay_memory_id").input("nope").run()
    assert not at.exception
    assert any("No memory" in w.value for w in at.warning)


def test_curves_follow_types_tiers_and_sliders(store: MemoryStore) -> None:
    at = _open()
    crossings = _table(at, "S (days)")
    by_curve = dict(zip(crossings["curve"], crossings.iloc[:, 2], strict=True))
    assert by_curve["observation"] == "383"  # 30 / 0.235 * 3
    at.multiselect(key="decay_curve_tiers").set_value(["normal", "constitutional"]).run()
    crossings = _table(at, "S (days)")
    assert "observation · constitutional" in list(crossings["curve"])
    never = crossings[crossings["curve"] == "observation · constitutional"]
    assert never.iloc[0, 2] == "never"
    at.slider(key="decay_wi_fsrs_factor").set_value(0.47).run()
    crossings = _table(at, "S (days)")
    row = crossings[crossings["curve"] == "observation · normal"].iloc[0]
    assert row.iloc[2] == "383" and row["what-if"] == "191"  # twice the factor: half the days
    at.multiselect(key="decay_curve_types").set_value([]).run()
    assert any("Pick at least one" in i.value for i in at.info)


def test_ranking_impact_compares_decay_on_and_off(store: MemoryStore) -> None:
    at = _open()
    at.text_input(key="decay_query").input("session storage Redis Postgres").run()
    assert not at.exception, at.exception
    impact = _table(at, "main factor")
    assert {"without decay", "with decay", "shift", "main factor"} <= set(impact.columns)
    assert set(impact["id"]) >= {"fresh", "cited"}
    assert all(s in ("=", "new", "out") or s[0] in "▲▼" for s in impact["shift"])


def test_empty_tenant_and_a_filter_matching_nothing(store: MemoryStore,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open()
    at.multiselect(key="decay_status").set_value(["archived"]).run()
    assert not at.exception, at.exception
    assert any("No memory matches the filter" in i.value for i in at.info)
    monkeypatch.setenv("MEMLENS_TENANT", "nobody")
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "has no memories yet" in at.info[0].value


def test_read_only_store_works(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_READ_ONLY", "1")
    at = _open(focus="cited")
    assert _metrics(at)["current · now"] == "1"
    assert _metrics(at)["Cites"] == "1"


def test_hostile_content_is_text_everywhere(store: MemoryStore) -> None:
    at = _open(focus="hostile")
    check_page(at, SHOWN_BIDI)
    risk = _table(at, "decay_risk_table")
    assert "<script>alert(1)</script>" in risk["content"].iloc[0]  # a cell: shown as text
    assert IMG in [t.value for t in at.text if t.value.startswith("<script>")][0]
    _select(at, "decay_risk_table", 0)
    at.text_input(key="decay_query").input("observation about load").run()
    check_page(at, SHOWN_BIDI)
    specs = "".join(c.proto.spec for c in at.get("plotly_chart"))
    assert "&lt;img src=x onerror=alert(1)&gt;" in specs and "<img" not in specs
