"""AppTest of the Map page on a small real LanceDB store embedded by the fake embedder (its
vectors are bags of words, so the three topics below sit apart): the map draws every memory
with its id, switching the colour recolours it, a query puts a star and rings its hits, a
selection (given through the chart's widget state, or by whole clusters) lists the right
memories and hands them to Curate; near-duplicate pairs are linked and tabled; hostile
content stays text; a read-only store works.

The store is built once for the module and the map cache (MEMLENS_MODEL_CACHE, one folder
for the test session) keeps its layout, so UMAP is fitted once, not once a test."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.app.inert import check_page
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "memlens_app" / "main.py")
PAGE = "page_scripts/map.py"
NOW = datetime(2026, 6, 1, tzinfo=UTC)
IMG = "<img src=x onerror=alert(1)>"
BIDI = "safe\u202etxt.exe"
HOSTILE = f"{IMG} <script>alert(1)</script> {BIDI} [link](http://evil.example) :red[alert]"
#: Three topics, twelve memories each: no word shared between topics.
TOPICS = {
    "lancedb": ("lancedb vector index table ivf partitions recall {}", "decision", "atlas"),
    "react": ("react component props render hooks state button {}", "pattern", "herd"),
    "billing": ("billing invoice stripe payment refund customer {}", "fact", "ledger"),
}
#: What sets a topic's memories apart: two words each (cosine within a topic about 7/9).
WORDS = ("alpha mars", "bravo venus", "charlie pluto", "delta titan", "echo io", "foxtrot ceres",
         "golf vesta", "hotel juno", "india europa", "juliet rhea", "kilo dione", "lima tethys")
#: Two memories whose vectors are nearly the same (cosine 14 / sqrt(14 x 15) = 0.966) but
#: whose text differs by one word.
NEAR_A = ("postgres session table vacuum autovacuum bloat tuning checkpoint wal archive "
          "replica lag pgbouncer pooling")
NEAR_B = NEAR_A + " nightly"


def _corpus() -> list[Memory]:
    memories = [Memory.new(text.format(word), memory_type, id=f"{topic}-{i:02d}",
                           project=project, agent=f"agent-{i % 3}",
                           created_at=NOW - timedelta(days=10 * i + 1))
                for topic, (text, memory_type, project) in TOPICS.items()
                for i, word in enumerate(WORDS)]
    memories += [Memory.new(HOSTILE, "observation", id="hostile", project="atlas"),
                 Memory.new(NEAR_A, "lesson", id="near-a", project="ledger"),
                 Memory.new(NEAR_B, "lesson", id="near-b", project="ledger")]
    return memories


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = MemoryStore.open(str(tmp_path_factory.mktemp("map") / "store"),
                             embedder=FakeEmbedder())
    store.add(_corpus())
    store.fts.ensure()
    return store.uri


@pytest.fixture
def store(shared_store: str, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    monkeypatch.setenv("MEMLENS_STORE", shared_store)
    yield MemoryStore.open(shared_store, embedder=app_embedder)


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _decoded(value: Any) -> Any:
    """A figure's JSON with plotly's typed arrays (`{"dtype": "f8", "bdata": base64}`, how
    it writes numpy arrays) as lists."""
    if isinstance(value, dict):
        if set(value) >= {"dtype", "bdata"}:
            raw = base64.b64decode(value["bdata"])
            return np.frombuffer(raw, dtype=np.dtype(value["dtype"])).tolist()
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _figure(at: AppTest) -> dict[str, Any]:
    [chart] = at.get("plotly_chart")
    figure: dict[str, Any] = _decoded(json.loads(chart.proto.spec))
    return figure


def _points(at: AppTest) -> dict[str, str]:
    """Each memory's marker colour (from the traces whose points are memories)."""
    out = {}
    for trace in _figure(at)["data"]:
        if trace.get("mode") == "markers" and trace.get("customdata"):
            for memory_id in trace["customdata"]:
                out[memory_id] = trace["marker"]["color"]
    return out


#: A column only each table has (AppTest gives keys to selectable tables only).
TABLES = {"clusters": "top types", "selection": "date", "duplicates": "cosine"}


def _table(at: AppTest, name: str) -> Any:
    [table] = [d for d in at.dataframe if TABLES[name] in d.value.columns]
    return table.value


def _has_table(at: AppTest, name: str) -> bool:
    return any(TABLES[name] in d.value.columns for d in at.dataframe)


def _select(at: AppTest, ids: list[str]) -> None:
    """A box selection as Streamlit's front end reports it: one point per memory."""
    points = [{"curve_number": 0, "point_number": i, "point_index": i, "x": 0.0, "y": 0.0,
               "customdata": memory_id} for i, memory_id in enumerate(ids)]
    at.session_state["map_chart"] = {"selection": {
        "points": points, "point_indices": list(range(len(ids))),
        "box": [{"x": [-9, 9], "y": [-9, 9], "xref": "x", "yref": "y"}], "lasso": []}}
    at.run()
    assert not at.exception, at.exception


def test_the_map_draws_every_memory_with_its_id(store: MemoryStore) -> None:
    before = store.table_versions()
    at = _open()
    assert at.header[0].value == "Map"
    assert set(_points(at)) == {m.id for m in _corpus()}
    assert any("39 memories" in c.value for c in at.caption)
    clusters = _table(at, "clusters")
    assert clusters["size"].sum() == 39
    assert store.table_versions() == before  # drawing a map writes nothing


def test_switching_the_colour_changes_the_marker_colours(store: MemoryStore) -> None:
    at = _open()
    by_type = _points(at)
    # types: lancedb decisions, react patterns, billing facts
    assert by_type["lancedb-00"] == by_type["lancedb-05"] != by_type["react-00"]
    at.button_group(key="map_colour").set_value("agent").run()
    by_agent = _points(at)
    assert by_agent["lancedb-00"] == by_agent["react-00"]  # both agent-0
    assert by_agent["lancedb-00"] != by_agent["lancedb-01"]  # agent-0, agent-1
    at.button_group(key="map_colour").set_value("age_days").run()
    [trace] = [t for t in _figure(at)["data"] if t.get("customdata")]
    assert trace["marker"]["colorbar"]["title"]["text"] == "Age (days)"
    assert isinstance(trace["marker"]["color"][0], float)


def test_a_query_puts_a_star_and_rings_its_hits(store: MemoryStore) -> None:
    at = _open()
    at.text_input(key="map_query").input("lancedb vector index table ivf partitions "
                                          "recall delta titan").run()
    at.number_input(key="map_k").set_value(5).run()
    assert not at.exception, at.exception
    data = _figure(at)["data"]
    [star] = [t for t in data if t.get("name") == "query"]
    assert star["marker"]["symbol"] == "star"
    [hits] = [t for t in data if str(t.get("name", "")).startswith("top 5 hits")]
    assert hits["customdata"][0] == "lancedb-03"  # its own text ranks first
    assert all(h.startswith("lancedb-") for h in hits["customdata"])
    assert hits["text"][0] == "1"
    # the star lands among the lancedb memories, nearer them than the other topics
    where = {i: (x, y) for t in data if t.get("mode") == "markers" and t.get("customdata")
             for i, x, y in zip(t["customdata"], t["x"], t["y"], strict=True)}
    sx, sy = star["x"][0], star["y"][0]

    def dist(memory_id: str) -> float:
        x, y = where[memory_id]
        return float(((x - sx) ** 2 + (y - sy) ** 2) ** 0.5)
    assert dist("lancedb-03") < min(dist(f"react-{i:02d}") for i in range(12))
    assert dist("lancedb-03") < min(dist(f"billing-{i:02d}") for i in range(12))


def test_a_selection_lists_its_memories_and_opens_them_in_curate(store: MemoryStore) -> None:
    at = _open()
    assert not _has_table(at, "selection")
    _select(at, ["react-02", "billing-07", "react-02"])
    table = _table(at, "selection")
    assert list(table["id"]) == ["react-02", "billing-07"]
    assert list(table["type"]) == ["pattern", "fact"]
    assert table["content"].iloc[0].startswith("react component props")
    at.button(key="map_to_curate").click().run()
    assert not at.exception, at.exception
    assert at.header[0].value == "Curate"
    # Curate took the handed-over ids (it removes the key) and lists them
    assert "curate_ids" not in at.session_state
    assert at.session_state["curate_id_text"] == "react-02\nbilling-07"


def test_whole_clusters_can_be_added_to_the_selection(store: MemoryStore) -> None:
    at = _open()
    at.button_group(key="map_colour").set_value("cluster").run()
    members = {t["name"]: set(t["customdata"]) for t in _figure(at)["data"]
               if t.get("mode") == "markers" and t.get("customdata")}
    [(name, react)] = [(n, ids) for n, ids in members.items() if "react-00" in ids]
    assert name != "noise"
    assert any(word in name for word in TOPICS["react"][0].split()[:7])  # the topic's words
    picker = at.multiselect(key="map_pick_clusters")
    picker.select(int(name.split(" · ")[0])).run()
    assert set(_table(at, "selection")["id"]) == react
    _select(at, ["billing-03"])  # the chart's selection first, then the cluster's memories
    assert list(_table(at, "selection")["id"])[0] == "billing-03"
    assert len(_table(at, "selection")) == len(react) + 1


def test_the_min_cluster_size_reaches_hdbscan(store: MemoryStore) -> None:
    at = _open()
    assert any("min cluster size 10;" in c.value for c in at.caption)  # max(10, 39 // 200)
    at.number_input(key="map_min_cluster").set_value(20).run()
    assert any("min cluster size 20;" in c.value for c in at.caption)
    # no topic has 20 memories: at most one cluster (two topics merged) and noise
    assert len(_table(at, "clusters")) <= 2


def test_near_duplicates_are_linked_and_tabled(store: MemoryStore) -> None:
    at = _open()
    assert not [t for t in _figure(at)["data"] if t.get("mode") == "lines"]
    at.toggle(key="map_duplicates").set_value(True).run()
    assert not at.exception, at.exception
    pairs = _table(at, "duplicates")
    assert list(zip(pairs["a"], pairs["b"], strict=True)) == [("near-a", "near-b")]
    [links] = [t for t in _figure(at)["data"] if str(t.get("name", "")).startswith("near-")]
    assert links["name"] == "near-duplicates (1 pairs)" and len(links["x"]) == 3


def test_hostile_content_is_escaped_in_the_hover_text(store: MemoryStore) -> None:
    at = _open()
    check_page(at)
    spec = at.get("plotly_chart")[0].proto.spec
    assert "&lt;img src=x onerror=alert(1)&gt;" in spec and "<img" not in spec
    assert "safe&lt;U+202E&gt;txt.exe" in spec and BIDI not in json.loads(spec).__repr__()
    _select(at, ["hostile"])
    check_page(at, "safe<U+202E>txt.exe")
    assert IMG in _table(at, "selection")["content"].iloc[0]  # a cell: plain text


def test_read_only_store_works(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_READ_ONLY", "1")
    before = store.table_versions()
    at = _open()
    assert len(_points(at)) == 39
    at.text_input(key="map_query").input("billing invoice").run()
    assert not at.exception, at.exception
    _select(at, ["billing-01"])
    assert list(_table(at, "selection")["id"]) == ["billing-01"]
    assert store.table_versions() == before


def test_a_restarted_server_reads_the_map_from_the_cache(store: MemoryStore) -> None:
    first = _figure(_open())  # fitted, or read from the cache an earlier test filled
    st.cache_resource.clear()  # a restarted server: only the disk cache is left
    st.cache_data.clear()
    at = _open()
    assert any("read from the map cache" in c.value for c in at.caption)
    assert _figure(at)["data"] == first["data"]


def test_empty_tenant_and_a_filter_matching_nothing(store: MemoryStore,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    at = _open()
    at.multiselect(key="map_status").set_value(["archived"]).run()
    assert not at.exception, at.exception
    assert any("No memory matches the filter" in i.value for i in at.info)
    assert not at.get("plotly_chart")
    monkeypatch.setenv("MEMLENS_TENANT", "nobody")
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "has no memories yet" in at.info[0].value
