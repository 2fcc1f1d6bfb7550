"""AppTest of the Curate page on a real LanceDB store embedded by the fake embedder: select,
preview, confirm, undo; a stale preview refused; the typed purge; read-only; the id handover;
hostile text shown as text."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memory_core import PURGE_NOTE, archive, edit
from memory_core.model.records import Edge, Memory
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore
from tests.app.inert import check_page, plain
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "memlens_app" / "page_scripts" / "curate.py")
HOSTILE = "<script>alert(1)</script> **bold** [link](javascript:x) :red[alert]"
#: The table lists newest first, every status (curation sees archived memories too).
LISTED = ["redis", "postgres", "evict", "hostile", "old"]
ACTIVE = LISTED[:4]


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """Four active memories (one hostile, in a hostile project), one archived, two edges."""
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    now = utcnow()

    def new(id: str, content: str, days: int, memory_type: str = "decision",
            **fields: Any) -> Memory:
        return Memory.new(content, memory_type, id=id, created_at=now - timedelta(days=days),
                          **fields)

    store.add([
        new("redis", "Cache sessions in Redis with a 15 minute TTL", 1, project="atlas",
            tags=["cache"]),
        new("postgres", "Cache sessions in Postgres instead of Redis", 2, project="atlas",
            tags=["cache", "postgres"]),
        new("evict", "Redis evicted session keys under load", 3, project="atlas",
            memory_type="observation", tags=["incident"]),
        new("hostile", HOSTILE, 4, project=HOSTILE, agent=HOSTILE, tags=[HOSTILE]),
        new("old", "Old note about memcached", 5, project="atlas", status="archived"),
    ])
    store.edges.add([Edge.new("evict", "redis", "caused"),
                     Edge.new("postgres", "redis", "supersedes")])
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _open() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def _listed(at: AppTest) -> list[str]:
    [table] = [d for d in at.dataframe if d.key == "curate_table"]
    return list(table.value["id"])


def _select(at: AppTest, *ids: str) -> AppTest:
    rows = _listed(at)
    at.session_state["curate_table"] = {
        "selection": {"rows": [rows.index(i) for i in ids], "columns": [], "cells": []}}
    return at.run()


def _preview(at: AppTest, action: str | None = None) -> AppTest:
    if action is not None:
        at.button_group(key="curate_action").set_value(action).run()
    at.button(key="curate_preview").click().run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> list[str]:
    return [e.value for e in [*at.markdown, *at.success, *at.error, *at.info, *at.caption,
                              *at.warning]]


#: The tables of the page by their columns (AppTest names only a selectable table by key).
CHANGES = ["content", "field", "before", "after", "memory"]
CREATED = ["change", "content", "memory"]
EDGES = ["change", "before", "after", "edge"]
CHECKS = ["check", "status", "detail"]
AUDIT = ["record", "kind", "field", "before", "after"]


def _frame(at: AppTest, columns: list[str]) -> list[dict[str, object]]:
    """The rows of every table with these columns, in page order."""
    return [row for d in at.dataframe if list(d.value.columns) == columns
            for row in d.value.to_dict("records")]


def _statuses(store: MemoryStore, *ids: str) -> dict[str, str]:
    return {i: m.status for i, m in store.get_many(list(ids)).items()}


def test_select_preview_confirm_and_undo(store: MemoryStore) -> None:
    before = store.get_many(["redis", "postgres"])
    at = _open()
    assert _listed(at) == LISTED
    at = _preview(_select(at, "redis", "postgres"))
    assert "**Preview:** archive\\: would change 2 memories" in _texts(at)
    changes = _frame(at, CHANGES)
    assert {(c["memory"], c["field"], c["before"], c["after"]) for c in changes} == {
        ("redis", "status", "active", "archived"), ("postgres", "status", "active", "archived")}
    assert _statuses(store, "redis", "postgres") == {"redis": "active", "postgres": "active"}

    at.button(key="curate_confirm").click().run()
    assert not at.exception, at.exception
    assert _statuses(store, "redis", "postgres") == {"redis": "archived",
                                                     "postgres": "archived"}
    [done] = at.success
    assert plain(done.value).startswith("archive: changed 2 memories; batch ")
    assert _listed(at) == LISTED  # archived memories stay listed in curation
    assert "0 selected" in " ".join(_texts(at))  # rows moved: the selection is cleared
    assert any("archive" in e.label for e in at.expander)  # the batch heads the audit log

    at.button(key="curate_undo_result").click().run()
    assert not at.exception, at.exception
    assert store.get_many(["redis", "postgres"]) == before  # exactly as before the archive
    assert plain(at.success[0].value).startswith("undo: changed 2 memories")
    assert _listed(at) == LISTED


def test_a_changed_selection_hides_the_stale_preview(store: MemoryStore) -> None:
    at = _preview(_select(_open(), "redis", "postgres"))
    assert at.button(key="curate_confirm")
    _select(at, "redis")
    assert not [b for b in at.button if b.key == "curate_confirm"]
    assert "Preview shows what would change; nothing is written until you confirm." in \
        _texts(at)


def test_confirm_after_a_change_behind_the_page_is_refused(store: MemoryStore) -> None:
    at = _preview(_select(_open(), "redis", "evict"))
    edit(store, "redis", tags=["cache", "changed-elsewhere"])  # the CLI, another tab, an agent
    at.button(key="curate_confirm").click().run()
    assert not at.exception, at.exception
    [error] = at.error
    assert plain(error.value) == ("memory 'redis' changed since the preview; nothing was "
                                  "changed: preview again")
    assert _statuses(store, "redis", "evict") == {"redis": "active", "evict": "active"}
    assert store.get("redis").tags == ("cache", "changed-elsewhere")


def test_purge_needs_the_typed_count_and_shows_the_verification(store: MemoryStore) -> None:
    at = _preview(_select(_open(), "evict"), "purge")
    assert any(plain(PURGE_NOTE) in plain(e.value) for e in at.error)  # said before confirming
    typed = [t for t in at.text_input if t.key and t.key.startswith("curate_purge_typed_")][0]
    typed.input("2").run()
    assert at.button(key="curate_confirm").disabled  # a browser cannot press it
    assert "evict" in store.get_many(["evict"])

    typed = [t for t in at.text_input if t.key and t.key.startswith("curate_purge_typed_")][0]
    typed.input("1").run()
    at.button(key="curate_confirm").click().run()
    assert not at.exception, at.exception
    assert store.get_many(["evict"]) == {}
    assert store.edges.list(memory_id="evict", include_inactive=True) == []
    checks = _frame(at, CHECKS)
    assert checks and {c["status"] for c in checks} <= {"pass", "skip", "info"}
    assert any(s.value.startswith("Verified: the memories are gone") for s in at.success)
    assert "A purge cannot be undone." in _texts(at)
    assert not [b for b in at.button if b.key == "curate_undo_result"]


def test_edit_one_memory_and_one_clear_line_for_a_refused_edit(store: MemoryStore) -> None:
    at = _select(_open(), "postgres")
    at.button_group(key="curate_action").set_value("edit").run()
    at.text_area(key="curate_edit_postgres_content").input(
        "Cache sessions in Redis with a 15 minute TTL").run()  # the content of `redis`
    _preview(at)
    [error] = at.error
    assert plain(error.value) == ("memory 'redis' already holds this content; merge the two "
                                  "instead, or allow a duplicate")
    at.text_area(key="curate_edit_postgres_content").input("Cache sessions in Postgres").run()
    at.multiselect(key="curate_edit_postgres_tags").set_value(["cache"]).run()
    _preview(at)
    fields = {c["field"]: (c["before"], c["after"])
              for c in _frame(at, CHANGES)}
    assert fields["content"] == ("Cache sessions in Postgres instead of Redis",
                                 "Cache sessions in Postgres")
    assert fields["tags"] == ('["cache", "postgres"]', '["cache"]')
    at.button(key="curate_confirm").click().run()
    memory = store.get("postgres")
    assert (memory.content, memory.tags) == ("Cache sessions in Postgres", ("cache",))


def test_merge_moves_edges_to_the_survivor(store: MemoryStore) -> None:
    at = _select(_open(), "redis", "evict")
    at.button_group(key="curate_action").set_value("merge").run()
    at.selectbox(key="curate_survivor").set_value("evict").run()
    _preview(at)
    edges = {(e["change"], e["after"]) for e in _frame(at, EDGES)}
    # the caused edge would become a self loop (dropped); postgres' edge now points at evict
    assert ("moved", "postgres -supersedes-> evict") in edges
    assert ("added", "evict -supersedes-> redis") in edges
    at.button(key="curate_confirm").click().run()
    assert _statuses(store, "redis", "evict") == {"redis": "superseded", "evict": "active"}
    assert store.get("evict").tags == ("incident", "cache")


def test_supersede_with_new_content(store: MemoryStore) -> None:
    at = _select(_open(), "redis")
    at.button_group(key="curate_action").set_value("supersede").run()
    at.text_area(key="curate_supersede_content").input("Cache sessions in Valkey").run()
    at.text_input(key="curate_reason").input("moved to Valkey").run()
    _preview(at)
    assert [r["change"] for r in _frame(at, CREATED)] == ["created"]
    at.button(key="curate_confirm").click().run()
    assert store.get("redis").status == "superseded"
    [created] = _frame(at, CREATED)  # the result's, under "What changed"
    new = store.get(str(created["memory"]))
    assert new.content == "Cache sessions in Valkey"
    assert ("supersedes", "redis") in {(e.relation, e.target_id)
                                       for e in store.edges.list(memory_id=new.id)}


def test_every_match_of_the_filter(store: MemoryStore) -> None:
    at = _open()
    at.multiselect(key="curate_project").set_value(["atlas"]).run()
    at.toggle(key="curate_everything").set_value(True).run()
    _preview(at)
    assert "**Preview:** archive\\: would change 3 memories" in _texts(at)
    at.button(key="curate_confirm").click().run()
    assert _statuses(store, *ACTIVE) == {"redis": "archived", "postgres": "archived",
                                         "evict": "archived", "hostile": "active"}


def test_audit_log_diffs_undo_and_a_refused_undo(store: MemoryStore) -> None:
    first = archive(store, ["redis"], reason="stale")
    edit(store, "redis", why="kept for the record")
    at = _open()
    labels = [e.label for e in at.expander]
    assert any("**edit**" in label for label in labels)
    at.button(key=f"curate_undo_{first.batch_id}").click().run()
    assert not at.exception, at.exception
    refusal = plain(" ".join(e.value for e in at.error))
    assert f"cannot undo batch '{first.batch_id}': 'redis' was changed later by 'edit'" in \
        refusal
    assert store.get("redis").status == "archived"  # nothing changed
    diffs = _frame(at, AUDIT)
    assert {"record": "redis", "kind": "memory", "field": "status", "before": "active",
            "after": "archived"} in diffs
    at.selectbox(key="curate_audit_action").set_value("archive").run()
    batches = [e.label for e in at.expander if " · " in e.label]
    assert len(batches) == 1 and "**archive**" in batches[0]


def test_read_only_hides_write_controls(store: MemoryStore,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    batch = archive(store, ["evict"]).batch_id
    version = store.version
    monkeypatch.setenv("MEMLENS_READ_ONLY", "1")
    at = _select(_open(), "redis")
    assert any(i.value.startswith("read-only: ") for i in at.info)
    assert _listed(at) == LISTED  # the table stays, archived ones too
    keys = {b.key for b in at.button} | {g.key for g in at.button_group}
    assert not keys & {"curate_preview", "curate_confirm", "curate_action"}
    assert at.button(key=f"curate_undo_{batch}").disabled  # the audit log stays, undo off
    assert store.version == version


def test_handed_over_ids_are_listed_and_selected(store: MemoryStore) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["curate_ids"] = ["old", "evict", "nope"]
    at.run()
    assert not at.exception, at.exception
    assert _listed(at) == ["old", "evict"]  # any status, in the order handed over
    assert "2 listed · 2 selected" in _texts(at)
    assert any("nope" in w.value for w in at.warning)
    _preview(at, "restore")
    assert "**Preview:** restore\\: would change 1 memory" in _texts(at)
    assert "1 already active\\: left as they are" in _texts(at)
    at.run()  # the handover is taken once: the user's choices stand from then on
    assert "2 listed · 2 selected" in _texts(at)


def test_hostile_text_is_shown_as_text(store: MemoryStore,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_ACTOR", HOSTILE)
    at = AppTest.from_file(str(ROOT / "memlens_app" / "main.py"), default_timeout=60).run()
    at.switch_page("page_scripts/curate.py").run()
    check_page(at, HOSTILE)
    at = _select(at, "hostile", "redis")
    at.button_group(key="curate_action").set_value("merge").run()
    _preview(at)
    at.button(key="curate_confirm").click().run()
    check_page(at, HOSTILE)
    [table] = [d for d in at.dataframe if d.key == "curate_table"]
    assert HOSTILE in list(table.value["content"])  # as typed, in a cell
    assert any(plain(HOSTILE) in plain(e.label) for e in at.expander)  # the actor, escaped


def test_audit_rows_read_as_field_diffs() -> None:
    from memlens_app.widgets.curate.audit import row_diffs
    from memory_core import AuditEntry

    def row(before: Any, after: Any) -> AuditEntry:
        return AuditEntry(id="r", at=utcnow(), tenant="default", actor="me", action="x",
                          before=before, after=after)

    kept = {"id": "a", "content": "A", "tags": ["x"], "updated_at": "t1"}
    changed = {**kept, "tags": ["x", "y"], "updated_at": "t2"}
    stone = {"id": "b", "content_hash": "h", "purged": True}
    edge = {"id": "e", "source_id": "a", "relation": "caused", "target_id": "c"}
    diffs = row_diffs(row({"kind": "memory", "records": [kept, {"id": "b", "content": "B"}]},
                          {"kind": "memory", "records": [changed, stone, edge]}))
    assert diffs == [  # updated_at is left out: every write changes it
        {"record": "a", "kind": "memory", "field": "tags", "before": '["x"]',
         "after": '["x", "y"]'},
        {"record": "b", "kind": "memory", "field": "(purged)", "before": "B",
         "after": "(purged; content hash h)"},
        {"record": "e", "kind": "memory", "field": "(created)", "before": "—",
         "after": "a -caused-> c"},
    ]
    assert row_diffs(row(None, {"access_count": {"a": 2}})) is None  # shown as JSON instead
