"""AppTest of the Curate page's Consolidate tab on a real LanceDB store embedded by the fake
embedder (bags of words: the two groups below share most of their words): candidates listed
strongest first with their members; accept the draft as written (rule_based) or edited
(manual), previewed then confirmed, and undone; reject; a member opened in Graph; the impact
preview; the evidence-changed queue after a source is archived; read-only; another tenant's
memories never shown; a hostile member shown as text. Then the Graph page's reflection view
(its sources and why it is flagged) and the Map's consolidation colours."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memlens_app.widgets.consolidate.candidates import by_strength
from memlens_app.widgets.curate.report import snippet
from memlens_app.widgets.graph.reflection import source_ids
from memory_core import Candidate, Filter, archive, consolidate, consolidation_candidates, recall
from memory_core.model.records import Memory
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore
from tests.app.inert import check_page, plain
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "memlens_app" / "main.py")
CURATE = "page_scripts/curate.py"
GRAPH = "page_scripts/graph.py"
MAP = "page_scripts/map.py"
#: Markdown, HTML, a bidi override and terminal control characters in one member's content.
HOSTILE = ("<script>alert(1)</script> **bold** [link](http://evil.example) :red[alert] "
           "safe\u202etxt \x1b[31m\x07")
REDIS = "redis evicted session keys under load at peak traffic cache memory limit"
DEPLOY = "deploy pipeline failed canary rollback friday release checklist staging"


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Two groups of alike memories (Redis evictions in atlas, with a hostile member; failed
    deploys in herd), two loose notes, and another tenant holding a group of its own."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    now = utcnow()

    def new(id: str, content: str, memory_type: str, days: int, **fields: Any) -> Memory:
        fields = {"project": "atlas", "agent": "kai", **fields}
        return Memory.new(content, memory_type, id=id, created_at=now - timedelta(days=days),
                          **fields)

    herd = {"agent": "mia", "project": "herd"}
    store.add([
        new("r1", f"{REDIS}. Ticket 4411 holds the graphs.", "observation", 9),
        new("r2", f"{REDIS}. Mia restarted the replica.", "observation", 8),
        new("r3", f"{REDIS}. Happened again on Monday.", "event", 7),
        new("r4", f"{HOSTILE} {REDIS}. Logged by the watchdog.", "observation", 6),
        new("d1", f"{DEPLOY}. Paged at night.", "event", 5, **herd),
        new("d2", f"{DEPLOY}. Rolled back by hand.", "event", 4, **herd),
        new("d3", f"{DEPLOY}. Write the checklist first.", "learning", 3, **herd),
        new("n1", "Use tabs for indentation in the makefile", "decision", 2),
        new("n2", "The office moves to the fourth floor in spring", "fact", 1),
    ])
    store.fts.ensure()
    other = MemoryStore.open(store.uri, embedder=app_embedder, tenant="other")
    other.add([Memory.new(f"tenant other billing invoice refund stripe {w}", "observation",
                          id=f"x{n}") for n, w in enumerate(("a", "b", "c"))])
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _open(page: str = CURATE, **state: Any) -> AppTest:
    """`page` through the router, the Consolidate tab open; `state` set before it runs."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.session_state["curate_tab"] = "Consolidate"
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _candidates(at: AppTest) -> Any:
    [table] = [d for d in at.dataframe if d.key == "consolidate_table"]
    return table.value


def _texts(at: AppTest) -> str:
    return "\n".join(plain(e.value) for e in [*at.markdown, *at.caption, *at.success,
                                              *at.warning, *at.info, *at.error])


def _draft(at: AppTest) -> Any:
    [area] = [t for t in at.text_area if t.key and t.key.startswith("consolidate_draft_")]
    return area


def _reflections(store: MemoryStore) -> list[Memory]:
    return store.list(Filter(memory_type="reflection"))


def _first(store: MemoryStore) -> Candidate:
    """The candidate the tab shows first: the strongest."""
    return by_strength(consolidation_candidates(store))[0]


def _sources(store: MemoryStore, reflection: str) -> set[str]:
    return {e.target_id for e in store.edges.list(memory_id=reflection)
            if e.relation == "derived_from" and e.source_id == reflection}


def test_candidates_strongest_first_with_their_members(store: MemoryStore) -> None:
    at = _open()
    table = _candidates(at)
    expected = by_strength(consolidation_candidates(store))
    assert len(table) == len(expected) >= 2
    assert list(table["strength"]) == sorted(table["strength"], reverse=True)
    assert list(table["members"]) == [len(c.members) for c in expected]
    first = expected[0]
    text = _texts(at)
    assert f"strength **{first.strength:.2f}**" in text
    assert set(table["agents"]) == {"kai", "mia"}
    # every member of the first candidate has its Graph button
    graph = [b for b in at.button if b.key and b.key.startswith(f"consolidate_graph_{first.id}")]
    assert len(graph) == len(first.members)
    assert "x0" not in text and "billing" not in " ".join(table["draft"])  # not this tenant's


def test_accept_the_draft_as_written_then_undo(store: MemoryStore) -> None:
    before = store.count()
    at = _open()
    first = _first(store)
    draft = _draft(at).value
    assert "method: **rule_based**" in _texts(at)
    at.button(key="consolidate_preview").click().run()
    assert not at.exception, at.exception
    assert "**Preview:** consolidate: would change" in _texts(at)
    [created] = [d.value.to_dict("records") for d in at.dataframe
                 if list(d.value.columns) == ["change", "content", "memory"]]
    # the reflection's row shows the text it would hold (it is not in the store yet)
    assert [(r["change"], r["content"]) for r in created] == [
        ("created", snippet(Memory.new(draft, "reflection")))]
    assert store.count() == before  # a preview writes nothing
    at.button(key="consolidate_confirm").click().run()
    assert not at.exception, at.exception
    [reflection] = _reflections(store)
    assert reflection.content == draft.strip()
    assert reflection.metadata["method"] == "rule_based"
    assert _sources(store, reflection.id) == set(first.members)
    assert "consolidate: changed" in _texts(at)
    assert at.button(key="consolidate_result_graph")
    assert first.id not in {c.id for c in consolidation_candidates(store)}
    at.button(key="consolidate_undo").click().run()
    assert not at.exception, at.exception
    assert _reflections(store) == [] and store.count() == before
    assert "undo: changed" in _texts(at)


def test_an_edited_draft_is_recorded_as_manual(store: MemoryStore) -> None:
    at = _open()
    _draft(at).input("Redis ran out of memory at peak: raise maxmemory").run()
    assert "method: **manual**" in _texts(at)
    at.button(key="consolidate_preview").click().run()
    at.button(key="consolidate_confirm").click().run()
    assert not at.exception, at.exception
    [reflection] = _reflections(store)
    assert reflection.content == "Redis ran out of memory at peak: raise maxmemory"
    assert reflection.metadata["method"] == "manual"


def test_a_draft_that_copies_a_member_is_called_out(store: MemoryStore) -> None:
    at = _open()
    first = _first(store)
    _draft(at).input("  " + store.get(first.members[1]).content + "\n").run()
    assert any("The text is member 2's content word for word" in w.value for w in at.warning)
    _draft(at).input("Redis evicts session keys at peak load").run()
    assert not any("word for word" in w.value for w in at.warning)


def test_an_edit_after_the_preview_hides_it(store: MemoryStore) -> None:
    at = _open()
    at.button(key="consolidate_preview").click().run()
    assert at.button(key="consolidate_confirm")
    _draft(at).input("Something else entirely").run()
    assert not [b for b in at.button if b.key == "consolidate_confirm"]


def test_reject_takes_the_candidate_off_the_list(store: MemoryStore) -> None:
    at = _open()
    count = len(_candidates(at))
    first = _first(store)
    at.text_input(key="consolidate_reason").input("not one story").run()
    at.button(key="consolidate_reject").click().run()
    assert not at.exception, at.exception
    assert "it is not proposed again until one of its members changes" in _texts(at)
    assert first.id not in {c.id for c in consolidation_candidates(store)}
    assert len(_candidates(at)) == count - 1


def test_a_member_opens_in_graph(store: MemoryStore) -> None:
    at = _open()
    first = _first(store)
    at.button(key=f"consolidate_graph_{first.id}_1").click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="graph_focus_id").value == first.members[0]


def test_impact_preview_measures_the_accept(store: MemoryStore) -> None:
    recall(store, "redis evicted session keys", limit=3, actor="agent")
    recall(store, "deploy pipeline canary rollback", limit=3, actor="agent")
    version = store.table_versions()
    at = _open()
    at.button(key="consolidate_impact_button").click().run()
    assert not at.exception, at.exception
    assert "**Impact on retrieval:** consolidate:" in _texts(at)
    [metrics] = [d for d in at.dataframe if "p_value" in d.value.columns]
    assert list(metrics.value["metric"])[:2] == ["recall@10", "ndcg@10"]
    assert store.table_versions() == version  # measured on a copy
    assert _reflections(store) == []


def test_evidence_changed_queue_after_a_source_is_archived(store: MemoryStore) -> None:
    first = _first(store)
    done = consolidate(store, list(first.members), "Redis evicts under peak load",
                       method="manual", candidate_id=first.id)
    [reflection_id] = done.created
    at = _open()
    assert "No reflection's evidence changed" in _texts(at)
    gone = first.members[-1]
    archive(store, [gone])
    at.run()
    [queue] = [d for d in at.dataframe if "what changed" in d.value.columns]
    [row] = queue.value.to_dict("records")
    assert row["reflection"] == reflection_id and row["what changed"] == f"archived: {gone}"
    then, now = row["strength then → now"].split(" → ")
    assert float(now) < float(then)


def test_read_only_lists_candidates_without_write_controls(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_READ_ONLY", "1")
    at = _open()
    assert len(_candidates(at)) >= 2
    assert "read-only: MEMLENS_READ_ONLY is set, so this app cannot accept or reject a " \
        "candidate." in _texts(at)
    keys = {b.key for b in at.button}
    assert not keys & {"consolidate_preview", "consolidate_reject", "consolidate_impact_button"}


def test_a_hostile_member_is_shown_as_text(store: MemoryStore) -> None:
    at = _open()
    check_page(at)
    shown = _texts(at)
    assert "<script>alert(1)</script> **bold** [link](http:" in shown  # escaped, not rendered
    assert "safe<U+202E>txt" in shown and "\u202e" not in shown
    at.button(key="consolidate_preview").click().run()
    at.button(key="consolidate_confirm").click().run()
    check_page(at)


def _reflection_of_the_redis_group(store: MemoryStore) -> tuple[str, list[str]]:
    group = next(c for c in consolidation_candidates(store) if "r4" in c.members)
    done = consolidate(store, list(group.members), f"Redis evicts under load {HOSTILE}",
                       method="manual", candidate_id=group.id)
    return done.created[0], list(group.members)


def test_graph_shows_a_reflections_sources_and_why_it_is_flagged(store: MemoryStore) -> None:
    reflection, members = _reflection_of_the_redis_group(store)
    at = _open(GRAPH, graph_focus=reflection)
    check_page(at)
    text = _texts(at)
    meta = store.get(reflection).metadata
    assert (f"**Reflection** · method manual · {len(members)} sources · strength "
            f"{meta['strength']:.2f}") in text
    assert f"**Its sources** ({len(members)})" in text
    assert "Evidence changed" not in text
    archive(store, [members[0]])
    at.run()
    [flag] = [w for w in at.warning if "Evidence changed" in w.value]
    assert f"archived: {members[0]}" in plain(flag.value)
    sources = [b for b in at.button if b.key and b.key.startswith("graph_source_")]
    assert len(sources) == len(members)
    listed = source_ids(store, store.get(reflection))  # the panel's order
    assert sorted(listed) == sorted(members)
    sources[-1].click().run()
    assert at.text_input(key="graph_focus_id").value == listed[-1]
    assert "**Reflection** ·" not in _texts(at)  # a source is no reflection


def test_map_colours_consolidated_candidate_and_neither(store: MemoryStore) -> None:
    reflection, members = _reflection_of_the_redis_group(store)
    at = _open(MAP)
    at.button_group(key="map_colour").set_value("consolidation").run()
    assert not at.exception, at.exception
    [chart] = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    groups = {t["name"]: set(t["customdata"]) for t in spec["data"]
              if t.get("mode") == "markers" and t.get("customdata")}
    assert groups["consolidated"] == {reflection, *members}
    assert {"d1", "d2", "d3"} <= groups["candidate"]
    assert {"n1", "n2"} <= groups["neither"]
    assert "Consolidation: " in _texts(at)
    check_page(at)
