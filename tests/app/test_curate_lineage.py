"""AppTest of the Curate page's purge that follows lineage: "With derived memories" lists the
closure with paths and a tick each, an unticked memory stays, the purge is one batch, and its
receipt is offered as a download (no content in it); hostile text stays text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memlens_app.widgets.curate.lineage import RECEIPT, tick_key
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.app.inert import plain
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "memlens_app" / "page_scripts" / "curate.py")
HOSTILE = "<script>alert(1)</script> **bold** [link](javascript:x) :red[alert]"


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """obs <- refl <- insight over derived_from, a hostile reflection of obs, and a note."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    store.add([Memory.new("redis evicted session keys under load", "observation", id="obs"),
               Memory.new("reflection: size redis for the session peak", "reflection",
                          id="refl"),
               Memory.new("insight: capacity follows the peak", "insight", id="insight"),
               Memory.new(f"reflection {HOSTILE}", "reflection", id="evil"),
               Memory.new("unrelated note about lunch", "fact", id="lunch")])
    store.edges.add([Edge.new("refl", "obs", "derived_from"),
                     Edge.new("insight", "refl", "derived_from"),
                     Edge.new("evil", "obs", "derived_from")])
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _select_obs(at: AppTest) -> AppTest:
    [table] = [d for d in at.dataframe if d.key == "curate_table"]
    rows = list(table.value["id"])
    at.session_state["curate_table"] = {
        "selection": {"rows": [rows.index("obs")], "columns": [], "cells": []}}
    at.run()
    at.button_group(key="curate_action").set_value("purge").run()
    return at


def _captions(at: AppTest) -> list[str]:
    return [plain(c.value) for c in at.caption]


def test_with_derived_lists_the_closure_with_paths_and_keeps_the_unticked(
        store: MemoryStore) -> None:
    at = _select_obs(AppTest.from_file(PAGE, default_timeout=60).run())
    at.checkbox(key="curate_with_derived").check().run()
    assert not at.exception, at.exception
    assert "3 derived from the selection (a ← b: b is derived from a); untick those that " \
           "should stay." in _captions(at)
    assert "path: `obs` ← `refl` ← `insight`" in _captions(at)
    labels = {plain(c.label) for c in at.checkbox}
    # escaped markup, which reads back as typed
    assert any("reflection <script>alert(1)</script> **bold**" in label for label in labels)
    at.checkbox(key=tick_key("insight")).uncheck().run()
    at.button(key="curate_preview").click().run()
    assert not at.exception, at.exception
    typed = [t for t in at.text_input if t.key and t.key.startswith("curate_purge_typed_")][0]
    typed.input("3").run()
    at.button(key="curate_confirm").click().run()
    assert not at.exception, at.exception
    assert set(store.get_many(["obs", "refl", "evil", "insight", "lunch"])) == {"insight",
                                                                               "lunch"}
    assert store.get("insight").status == "active"
    [purge] = {e.batch_id for e in store.audit.query(action="purge", limit=None)}  # one
    batch, name, text = at.session_state[RECEIPT]
    assert batch == purge and name == f"memlens-receipt-{batch}.json"
    body = json.loads(text)
    assert {m["id"] for m in body["memories"]} == {"obs", "refl", "evil"}
    assert {m["id"]: m["derived_path"] for m in body["memories"]}["refl"] == ["obs", "refl"]
    assert "redis" not in text and "script" not in text
    assert [b for b in at.get("download_button")]  # offered beside the verification


def test_the_choice_changes_the_request_so_a_stale_preview_is_hidden(
        store: MemoryStore) -> None:
    at = _select_obs(AppTest.from_file(PAGE, default_timeout=60).run())
    at.checkbox(key="curate_with_derived").check().run()
    at.button(key="curate_preview").click().run()
    assert at.button(key="curate_confirm")
    at.checkbox(key=tick_key("refl")).uncheck().run()  # the preview no longer says it
    assert not [b for b in at.button if b.key == "curate_confirm"]
