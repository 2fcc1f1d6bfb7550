"""AppTest of the Graph page on a real LanceDB store embedded by the fake embedder: focus by
search, by id and by the "open in graph" handover; the controls change the neighbourhood;
lineage, supersession, contradictions and health render; the handover to Curate; hostile
content stays text (in Streamlit's elements and in the drawing's HTML)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.model.records import Edge, Memory
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore
from tests.app.inert import check_page, plain
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "memlens_app" / "main.py")
PAGE = "page_scripts/graph.py"
IMG = "<img src=x onerror=alert(1)>"
HOSTILE = f"{IMG} [link](http://evil.example) :red[alert] prefers Postgres"


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """A small story: a load test caused evictions, which caused the Redis decision, since
    superseded by the Postgres one they enabled; a contradiction, a hostile memory, an
    archived supporter, a derived lesson, an orphan."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    now = utcnow()

    def new(id: str, content: str, memory_type: str, days: int, **fields: Any) -> Memory:
        return Memory.new(content, memory_type, id=id, project="atlas",
                          created_at=now - timedelta(days=days), **fields)

    store.add([
        new("far", "Load test ran at five thousand requests per second", "event", 30),
        new("evict", "Redis evicted session keys under load", "observation", 29),
        new("redis", "Cache sessions in Redis with a short TTL", "decision", 28,
            status="superseded"),
        new("pg", "Cache sessions in Postgres instead of Redis", "decision", 20),
        new("contra", "Redis never evicts session keys", "fact", 10),
        new("hostile", HOSTILE, "preference", 5),
        new("old", "Postgres handled the session table fine in staging", "fact", 40,
            status="archived"),
        new("lesson", "Evictions under load mean the cache is too small", "lesson", 2),
        new("lonely", "An unrelated note about code review etiquette", "fact", 1),
    ])
    store.edges.add([
        Edge.new("far", "evict", "caused", strength=0.9),
        Edge.new("evict", "redis", "caused", strength=0.9),
        Edge.new("pg", "redis", "supersedes"),
        Edge.new("evict", "pg", "enabled", strength=0.8),
        Edge.new("hostile", "pg", "relates_to", strength=0.5),
        Edge.new("contra", "evict", "contradicts"),
        Edge.new("old", "pg", "supports", strength=0.7),
        Edge.new("lesson", "pg", "derived_from", strength=0.6),
    ])
    store.fts.ensure()
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _open(focus: str | None = None) -> AppTest:
    """The Graph page through the router; with `focus`, handed over as "open in graph"."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    if focus is not None:
        at.session_state["graph_focus"] = focus
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _nodes(at: AppTest) -> list[str]:
    """The ids in the neighbourhood table, in page order."""
    [table] = [d for d in at.dataframe if d.key == "graph_table"]
    return list(table.value["id"])


def _table(at: AppTest, columns: list[str]) -> Any:
    """The one table with these columns (AppTest keys only selectable tables)."""
    [table] = [d for d in at.dataframe if list(d.value.columns) == columns]
    return table.value


def _drawing(at: AppTest) -> str:
    [frame] = at.get("iframe")
    return str(frame.proto.srcdoc)


def _drawn(at: AppTest, what: str) -> list[dict[str, Any]]:
    """The node or edge records handed to vis-network in the drawing."""
    match = re.search(r"var nodes = (.*?), edges = (.*?), options = ", _drawing(at))
    assert match is not None
    return json.loads(match.group(1 if what == "nodes" else 2))


def _markdown(at: AppTest) -> str:
    return "\n".join(plain(e.value) for e in [*at.markdown, *at.caption, *at.warning,
                                              *at.info])


def test_without_a_focus_the_page_says_how_to_pick_one(store: MemoryStore) -> None:
    at = _open()
    assert at.header[0].value == "Graph"
    assert "Find a memory by search or paste its id" in at.info[0].value
    assert not at.get("iframe")


def test_focus_by_id_draws_the_neighbourhood(store: MemoryStore) -> None:
    at = _open()
    at.segmented_control(key="graph_focus_by").set_value("id").run()
    at.text_input(key="graph_focus_id").input("pg").run()
    assert not at.exception, at.exception
    # one hop, active only: the superseded and archived neighbours are left out
    assert _nodes(at) == ["pg", "evict", "lesson", "hostile"]
    assert {n["id"] for n in _drawn(at, "nodes")} == {"pg", "evict", "lesson", "hostile"}
    assert "4 memories, 3 edges" in _markdown(at)
    assert "graph_focus" not in at.session_state


def test_handover_from_another_page_centres_the_graph(store: MemoryStore) -> None:
    at = _open(focus="evict")
    assert at.text_input(key="graph_focus_id").value == "evict"
    assert _nodes(at)[0] == "evict"
    assert "graph_focus" not in at.session_state  # taken once


def test_focus_by_search(store: MemoryStore) -> None:
    at = _open()
    at.text_input(key="graph_query").input("Postgres sessions cache").run()
    assert not at.exception, at.exception
    pick = at.selectbox(key="graph_pick")
    assert pick.value == "pg" == _nodes(at)[0]  # the best hit first
    assert pick.options[0] == "decision · Cache sessions in Postgres instead of Redis"
    pick.select("evict").run()
    assert _nodes(at)[0] == "evict"


def test_hops_relations_and_inactive_change_the_nodes(store: MemoryStore) -> None:
    at = _open(focus="pg")
    assert len(_nodes(at)) == 4
    at.slider(key="graph_hops").set_value(2).run()
    assert set(_nodes(at)) == {"pg", "evict", "lesson", "hostile", "far", "contra"}
    at.multiselect(key="graph_relations").set_value(["caused", "enabled"]).run()
    assert set(_nodes(at)) == {"pg", "evict", "far"}
    assert {e["id"] for e in _drawn(at, "edges")} == {
        e.id for e in store.edges.list() if e.relation in ("caused", "enabled")
        and {e.source_id, e.target_id} <= {"pg", "evict", "far"}}
    at.slider(key="graph_hops").set_value(1).run()
    at.multiselect(key="graph_relations").set_value(
        ["caused", "enabled", "supports", "supersedes", "derived_from", "relates_to"]).run()
    at.toggle(key="graph_inactive").set_value(True).run()
    assert set(_nodes(at)) == {"pg", "evict", "lesson", "hostile", "redis", "old"}
    at.number_input(key="graph_limit").set_value(10).run()
    at.slider(key="graph_min_strength").set_value(0.85).run()
    assert not at.exception, at.exception
    # only edges of strength >= 0.85 decayed: the supersedes edge (1.0, fresh) is left
    assert set(_nodes(at)) == {"pg", "redis"}
    at.multiselect(key="graph_relations").set_value([]).run()
    assert "Pick at least one relation" in at.info[0].value and not at.get("iframe")


def test_node_cap_says_how_many_were_left_out_and_why(store: MemoryStore) -> None:
    at = _open(focus="pg")
    at.slider(key="graph_hops").set_value(2).run()
    assert len(_nodes(at)) == 6 and not at.warning
    at.number_input(key="graph_limit").set_value(3).run()
    assert _nodes(at)[0] == "pg" and len(_nodes(at)) == 3
    [warning] = at.warning
    assert warning.value.startswith("3 more memories are within reach but left out above "
                                    "the cap of 3 nodes: kept the focus")


def test_lineage_chain_and_contradictions_beside_the_drawing(store: MemoryStore) -> None:
    at = _open(focus="pg")
    text = _markdown(at)
    # ancestors as sentences from the first cause to the focus, longest first
    words = re.sub(r":\w+-badge\[([^]]*)\]", r"\1", text).replace("*", "")
    # 0.72 = 0.9 (caused) x 0.8 (enabled): the edges are fresh, nothing has decayed yet
    assert ("1. 2 hops, strength 0.72: event Load test ran at five thousand requests per "
            "sec… caused observation Redis evicted session keys under load enabled this "
            "memory" in words)
    assert "What led to it (3 memories)" in words  # evict, far, old (archived: still a cause)
    assert "What it led to (1 memory)" in words  # lesson, derived from it
    assert "this memory is the source of lesson Evictions under load" in words
    # the supersession chain: the Redis decision, then this one, current
    assert re.search(r"1\. .*Cache sessions in Redis.*\n2\. .*Cache sessions in Postgres.*★ "
                     r":orange-badge\[current\]", text)
    assert "No memory contradicts this one." in text

    at = _open(focus="evict")
    text = _markdown(at)
    assert "Contradicted by:" in text and "Redis never evicts session keys" in text
    assert "Not part of a supersession chain" in text


def test_contradictions_queue_hands_the_pair_to_curate(store: MemoryStore) -> None:
    at = _open()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Contradicting pairs"] == "1" and metrics["Both sides active"] == "1"
    [queue] = [d for d in at.dataframe if d.key == "graph_queue"]
    assert list(queue.value["a id"]) == ["contra"] and list(queue.value["b id"]) == ["evict"]
    assert at.button(key="graph_queue_curate").disabled
    at.session_state["graph_queue"] = {"selection": {"rows": [0], "columns": [],
                                                     "cells": []}}
    at.run()
    at.button(key="graph_queue_curate").click().run()
    assert not at.exception, at.exception
    assert at.header[0].value == "Curate"
    assert set(at.text_area(key="curate_id_text").value.split()) == {"contra", "evict"}


def test_focus_contradiction_curate_button(store: MemoryStore) -> None:
    at = _open(focus="contra")
    [button] = [b for b in at.button if b.key and b.key.startswith("graph_curate_")]
    button.click().run()
    assert at.header[0].value == "Curate"
    assert set(at.text_area(key="curate_id_text").value.split()) == {"contra", "evict"}


def test_graph_health_counts_and_drills_down(store: MemoryStore) -> None:
    at = _open()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Memories"] == "9" and metrics["Active edges"] == "8"
    findings = _table(at, ["finding", "count", "what"])
    counts = dict(zip(findings["finding"], findings["count"], strict=True))
    assert counts["orphans"] == 1 and counts["edges_to_inactive"] == 2
    assert counts["dangling_edges"] == 0
    drill = at.selectbox(key="graph_finding")
    assert drill.options == ["orphans (1)", "edges_to_inactive (2)"]
    assert list(_table(at, ["memory", "type", "status", "content"])["memory"]) == ["lonely"]
    drill.select("edges_to_inactive").run()
    edges = _table(at, ["edge", "relation", "source", "target"])
    assert set(zip(edges["source"], edges["target"], strict=True)) == {
        ("evict", "redis"), ("old", "pg")}


def test_table_row_opens_the_memory_and_centres_there(store: MemoryStore) -> None:
    at = _open(focus="pg")
    rows = _nodes(at)
    at.session_state["graph_table"] = {"selection": {"rows": [rows.index("evict")],
                                                     "columns": [], "cells": []}}
    at.run()
    assert "Redis evicted session keys under load" in [t.value for t in at.text]
    at.button(key="graph_centre").click().run()
    assert at.text_input(key="graph_focus_id").value == "evict"
    assert _nodes(at)[0] == "evict"


def test_hostile_content_is_text_everywhere(store: MemoryStore) -> None:
    at = _open(focus="hostile")
    check_page(at)
    [table] = [d for d in at.dataframe if d.key == "graph_table"]
    assert HOSTILE[:99] in list(table.value["content"])[0]
    html = _drawing(at)
    assert IMG not in html and "<img" not in html
    [node] = [n for n in _drawn(at, "nodes") if n["id"] == "hostile"]
    assert "&lt;img src=x onerror=alert(1)&gt; [link](http://evil.example)" in node["title"]
    # the lineage and table of a focus next to it show it escaped too
    at = _open(focus="pg")
    check_page(at)


def test_open_in_graph_from_a_search_result(store: MemoryStore) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("page_scripts/search.py").run()
    at.text_input(key="search_query").input("Postgres sessions").run()
    assert not at.exception, at.exception
    at.button(key="graph_pg").click().run()
    assert not at.exception, at.exception
    assert at.header[0].value == "Graph"
    assert _nodes(at)[0] == "pg"
