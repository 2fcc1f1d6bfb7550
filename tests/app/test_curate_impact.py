"""AppTest of the Curate page's Impact button: the metrics table and the changed queries of
the chosen action, measured on a scratch copy (the store is unchanged), hostile query text
shown as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.impact_preview.queries import save_query_set
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.app.inert import check_page
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "memlens_app" / "page_scripts" / "curate.py")
HOSTILE = "<script>alert(1)</script> **bold** [link](javascript:x) :red[alert]"


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Three memories and a saved query set whose one query only `zeb` answers."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    store.add([Memory.new("zebra migrations roll back with the down script", "decision",
                          id="zeb"),
               Memory.new("prefer uv over pip for installs", "decision", id="uv"),
               Memory.new("ci cache key includes the lockfile hash", "decision", id="ci")])
    queries = tmp_path / "q.ndjson"
    queries.write_text(json.dumps({"qid": "qz", "query": f"zebra migrations roll back {HOSTILE}",
                                   "relevant": {"zeb": 1}}) + "\n", encoding="utf-8")
    save_query_set(store, queries)
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def test_impact_shows_the_metrics_and_the_lost_memory_and_writes_nothing(
        store: MemoryStore) -> None:
    versions = store.table_versions()
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception, at.exception
    [table] = [d for d in at.dataframe if d.key == "curate_table"]
    rows = list(table.value["id"])
    at.session_state["curate_table"] = {
        "selection": {"rows": [rows.index("zeb")], "columns": [], "cells": []}}
    at.run()
    at.button(key="curate_impact_button").click().run()
    assert not at.exception, at.exception
    [metrics] = [d for d in at.dataframe if "metric" in d.value.columns]
    by_metric = {r.metric: r for r in metrics.value.itertuples()}
    assert list(by_metric) == ["recall@10", "ndcg@10", "mrr@10"]
    assert (float(by_metric["recall@10"].before), float(by_metric["recall@10"].after)) == (1, 0)
    [moves] = [d for d in at.dataframe if "why" in d.value.columns]
    lost = [r for r in moves.value.itertuples() if r.change == "lost"]
    assert [(r.memory, r.why) for r in lost] == [("zeb", "archived")]
    check_page(at, "1 of 1 queries change their top 10", "saved query set")
    assert store.table_versions() == versions
    assert store.get_many(["zeb"])["zeb"].status == "active"
    # another action: the kept report no longer describes the inputs and is not shown
    at.button_group(key="curate_action").set_value("delete").run()
    assert not [d for d in at.dataframe if "metric" in d.value.columns]
