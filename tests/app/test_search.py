"""AppTest of the Search page against a real LanceDB store with the real embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Expander

from memory_core.model.config import Settings
from memory_core.model.records import Edge, Memory
from memory_core.model.values import utcnow
from memory_core.retrieval.search import EngineEvidence, Hit
from memory_core.store import MemoryStore
from memory_core.viz.explain import score_parts, score_waterfall

PAGE = str(Path(__file__).resolve().parents[2] / "memlens_app" / "page_scripts" / "search.py")
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)> prefers terse caching answers"
ATLAS = {"dec-old", "dec-new", "obs-evict", "auth-mutex", "auth-tabs"}
HERD = {"hostile", "herd-table", "herd-summary", "herd-uv", "archived"}

pytestmark = pytest.mark.model  # the stores here are embedded by the real model


@pytest.fixture(scope="module")
def store_uri(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> str:
    """Ten memories on two projects, seeded once (the real model embeds them)."""
    uri = str(tmp_path_factory.mktemp("search") / "store")
    env = {"MEMLENS_STORE": uri, "MEMLENS_MODEL_CACHE": str(model_cache)}
    store = MemoryStore.open(settings=Settings.from_env(env))
    now = utcnow()

    def new(id: str, content: str, mtype: str, project: str, agent: str, days: int,
            **fields: Any) -> Memory:
        return Memory.new(content, mtype, id=id, project=project, agent=agent,
                          created_at=now - timedelta(days=days, hours=1), **fields)

    store.add([
        new("dec-old", "Cache sessions in Redis with a 15 minute TTL", "decision", "atlas",
            "mason", 40, status="superseded", tags=["cache"]),
        new("dec-new", "Cache sessions in Postgres instead of Redis; Redis evicted sessions "
            "under load", "decision", "atlas", "mason", 12, tags=["cache", "postgres"],
            why="Redis evictions logged users out"),
        new("obs-evict", "Redis evicted session keys under memory pressure during the load "
            "test", "observation", "atlas", "iris", 14, tags=["cache", "incident"]),
        new("auth-mutex", "Auth refresh race fixed with a mutex around token refresh",
            "decision", "atlas", "mason", 5, tags=["auth"]),
        new("auth-tabs", "Two tabs refreshing tokens at once logged users out", "observation",
            "atlas", "iris", 6, tags=["auth"]),
        new("hostile", HOSTILE, "preference", "herd", "steve", 3, tags=["style"]),
        new("herd-table", "Herd agents share one LanceDB table with metadata filters",
            "pattern", "herd", "steve", 20, tags=["lancedb"]),
        new("herd-summary", "Summarise each session cache review in under 200 words\n"
            "Second line with the details", "session_summary", "herd", "ada", 2),
        new("herd-uv", "Use uv to install Python tools in CI", "lesson", "herd", "ada", 30,
            tags=["ci"]),
        new("archived", "Old note about session caching in memcached", "fact", "herd", "ada",
            90, status="archived"),
    ])
    # the eviction observation caused the old decision; the graph reaches it from there and
    # shows its successor instead, saying so
    store.edges.add([Edge.new("dec-new", "dec-old", "supersedes", strength=0.5),
                     Edge.new("obs-evict", "dec-old", "caused", strength=0.9)])
    store.fts.ensure()  # once here, so no test depends on which one searches first
    return uri


@pytest.fixture(autouse=True)
def fresh_app(store_uri: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMLENS_STORE", store_uri)
    st.cache_resource.clear()  # a store handle cached with another embedder must not leak
    st.cache_data.clear()
    yield
    st.cache_resource.clear()


def _search(query: str = "where do we cache sessions", **choices: list[str]) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    for key, value in choices.items():
        at.multiselect(key=key).set_value(value)
    at.text_input(key="search_query").input(query).run()
    assert not at.exception
    return at


def _hit_ids(at: AppTest) -> list[str]:
    return [b.key.removeprefix("detail_") for b in at.button
            if b.key and b.key.startswith("detail_")]


def _frames(at: AppTest, first_column: str) -> list[Any]:
    """The tables whose first column is `first_column` (pandas frames)."""
    return [d.value for d in at.dataframe if list(d.value.columns[:1]) == [first_column]]


def _why(at: AppTest, rank: int) -> Expander:
    return [e for e in at.expander if e.label == "Why this rank"][rank - 1]


def test_search_explains_each_hit(store_uri: str) -> None:
    at = _search()
    ids = _hit_ids(at)
    assert ids[0] == "dec-new" and set(ids) <= (ATLAS | HERD) - {"dec-old", "archived"}
    assert any(c.value.startswith(f"{len(ids)} results in ") for c in at.caption)
    assert len([e for e in at.expander if e.label == "Why this rank"]) == len(ids)
    why = _why(at, 1)
    metrics = {m.label: m.value for m in why.metric}
    assert set(metrics) == {"Final score", "Fused", "Bonus", "Decay", "MMR"}
    # the default fusion is convex: no bonus; no decay in hybrid_graph
    assert metrics["Bonus"] == "×1.00" and metrics["Decay"] == "×1.000"
    engines = why.dataframe[0].value
    assert list(engines["engine"]) == ["vector", "bm25", "graph"]
    # contributions are the weights' shares (1, 1, 1.5 of 3.5) of normalised scores: the
    # graph's best hit normalises to its list's top score
    assert engines["contribution"].sum() == pytest.approx(float(metrics["Fused"]), abs=2e-4)
    assert engines["contribution"].iloc[2] > 0
    notes = [i.value for i in why.info]
    assert notes == ["Stands in for superseded memory dec\\-old"]
    assert any("via caused" in c.value for c in why.caption)
    assert len(why.get("plotly_chart")) == 1
    # searching never records access
    store = MemoryStore.open(store_uri)
    assert store.get("dec-new").access_count == 0
    assert "recall" not in {e.action for e in store.audit.entries()}


def test_preset_and_knobs_change_the_ranking() -> None:
    at = _search()
    at.selectbox(key="search_preset").select("bm25").run()
    assert not at.exception
    engines = _why(at, 1).dataframe[0].value
    assert list(engines["engine"]) == ["bm25"]
    assert not any("differ from" in c.value for c in at.caption)
    at.toggle(key="knob_bm25_use_graph").set_value(True).run()
    assert any(c.value.startswith("1 knob(s) differ from bm25: use") for c in at.caption)
    assert "graph" in list(_why(at, 1).dataframe[0].value["engine"])
    at.toggle(key="knob_bm25_use_bm25").set_value(False).run()  # no engine left: invalid
    assert not at.exception
    assert "turn on the vector or the BM25 engine" in at.error[0].value
    assert _hit_ids(at) == []


def test_the_bm25_context_knob_is_offered_where_it_acts() -> None:
    at = _search()
    at.selectbox(key="search_preset").select("bm25").run()  # no session context in bm25
    assert at.selectbox(key="knob_bm25_bm25_context").disabled
    at.selectbox(key="search_preset").select("hybrid").run()
    knob = at.selectbox(key="knob_hybrid_bm25_context")
    assert knob.value == "window" and not knob.disabled
    knob.select("lift").run()
    assert not at.exception
    assert any(c.value.startswith("1 knob(s) differ from hybrid: bm25")  # Markdown-escaped
               and "context" in c.value for c in at.caption)


def test_hostile_content_shows_literally_never_as_html() -> None:
    at = _search("terse caching answers")
    assert "hostile" in _hit_ids(at)
    assert HOSTILE in [t.value for t in at.text]
    assert not at.get("html")
    for element in [*at.markdown, *at.caption, *at.info, *at.warning, *at.error]:
        assert "<script" not in element.value and "<img" not in element.value
        assert not getattr(element.proto, "allow_html", False)


def test_output_tiers_show_more_or_less() -> None:
    at = _search("session cache review summary")
    assert "herd-summary" in _hit_ids(at)
    full = "Summarise each session cache review in under 200 words\nSecond line with the details"
    assert full in [t.value for t in at.text]  # standard: the whole content
    tier = at.button_group(key="search_tier")
    tier.set_value("minimal").run()
    texts = [t.value for t in at.text]
    assert "Summarise each session cache review in under 200 words" in texts
    assert not any("Second line" in t for t in texts)
    assert not any("atlas" in m.value for m in at.markdown)  # no project badges
    tier.set_value("compact").run()
    assert any("atlas" in m.value for m in at.markdown)
    assert not _why(at, 1).proto.expanded
    tier.set_value("full").run()
    assert _why(at, 1).proto.expanded
    fields = _frames(at, "field")[0]
    assert {"id", "memory_type", "status", "importance", "created_at"} <= set(fields["field"])
    assert fields.set_index("field").loc["project", "value"] in {"atlas", "herd"}


def test_detail_view_shows_edges_and_audit() -> None:
    at = _search()
    at.button(key="detail_dec-new").click().run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Memory"]
    [fields] = _frames(at, "field")
    assert fields.set_index("field").loc["id", "value"] == "dec-new"
    [edges] = _frames(at, "direction")
    rows = {(r["direction"], r["relation"], r["other id"]) for _, r in edges.iterrows()}
    assert rows == {("out →", "supersedes", "dec-old")}
    assert "Redis with a 15 minute TTL" in " ".join(edges["other memory"])
    [audit] = _frames(at, "at")  # the add and the add_edges rows
    assert set(audit["action"]) >= {"add", "add_edges"}
    at.button(key="detail_close").click().run()
    assert not at.subheader


def test_filters_narrow_the_results() -> None:
    at = _search(search_project=["herd"])
    ids = _hit_ids(at)
    assert ids and set(ids) <= HERD - {"archived"}
    assert any("project = herd" in c.value for c in at.caption)
    at.multiselect(key="search_status").set_value(["active", "archived"]).run()
    assert "archived" in _hit_ids(at)
    at.date_input(key="search_after").set_value(date.today() - timedelta(days=10)).run()
    assert set(_hit_ids(at)) == {"hostile", "herd-summary"}


def test_without_an_embedder_search_degrades_to_bm25(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    at = _search()
    assert "embedder is unavailable" in at.warning[0].value
    assert _hit_ids(at)[0] == "dec-new"
    engines = _why(at, 1).dataframe[0].value
    assert "vector" not in list(engines["engine"])


def test_score_parts_add_up_to_the_score() -> None:
    """The chart's bars: engine contributions, then bonus, decay and MMR (hand-computed)."""
    rrf = 1 / 61 + 1 / 63
    hit = Hit(memory=Memory.new("x", "fact"), rank=1, fused_sum=rrf, bonus=1.1, decay=0.5,
              mmr_adjustment=-0.001, score=rrf * 1.1 * 0.5 - 0.001,
              engines={"bm25": EngineEvidence(3, 2.0, 1 / 63),
                       "vector": EngineEvidence(1, 0.8, 1 / 61)})
    assert score_parts(hit) == [("vector", 1 / 61), ("bm25", 1 / 63),
                                ("fusion bonus", rrf * (1.1 - 1)),
                                ("decay", rrf * 1.1 * (0.5 - 1)), ("MMR", -0.001)]
    assert sum(v for _, v in score_parts(hit)) == pytest.approx(hit.score)
    bars = score_waterfall(hit).data[0]
    assert list(bars.y) == ["vector", "bm25", "fusion bonus", "decay", "MMR", "score"]
    assert list(bars.measure) == ["relative"] * 5 + ["total"]
