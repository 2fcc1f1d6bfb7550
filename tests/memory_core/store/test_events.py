"""The `events` table (schema v2): recall writes events, reads are tenant-scoped, a schema v1
store opens read-only as it is and is upgraded in place by a writable open, and exports carry
the events through an import."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import lancedb
import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.model.errors import InvalidRecordError, ReadOnlyError
from memory_core.model.filters import Filter
from memory_core.model.records import Event, Memory
from memory_core.model.schema import META_SCHEMA_VERSION
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from memory_core.store.tables import schema_version_of
from tests.conftest import FakeEmbedder

T0 = datetime(2026, 10, 1, 12, tzinfo=UTC)


def _filled(path: str, tenant: str = "default") -> tuple[MemoryStore, list[str]]:
    store = MemoryStore.open(path, embedder=FakeEmbedder(), tenant=tenant)
    ids = store.add([Memory.new(f"{tenant}: postgres pool size note {i}", "fact")
                     for i in range(3)]).inserted
    return store, list(ids)


def test_recall_writes_one_recall_event_per_memory_returned(store_path: str) -> None:
    store, ids = _filled(store_path)
    result = recall(store, "postgres pool", limit=2, session_id="s-1", now=T0)
    sent = [item["id"] for item in result.items]
    events = store.events.query(kinds=["recall"])
    assert sorted(e.memory_id for e in events) == sorted(sent)
    assert {e.session_id for e in events} == {"s-1"}
    assert {e.query for e in events} == {"postgres pool"}
    assert {e.at for e in events} == {T0}
    assert sorted(e.metadata["rank"] for e in events) == [1, 2]
    # and the access statistics still move, as before
    assert all(store.get(i).access_count == 1 for i in sent)


def test_events_are_tenant_scoped(store_path: str) -> None:
    a, a_ids = _filled(store_path, "alpha")
    b, _ = _filled(store_path, "beta")
    a.events.record([Event.new("cite", a_ids[0], at=T0)])
    assert [e.memory_id for e in a.events.query()] == [a_ids[0]]
    assert a.events.query()[0].tenant == "alpha"
    assert b.events.query() == []
    assert b.events.latest("cite").num_rows == 0


def test_latest_gives_each_memory_its_newest_event_and_count(store: MemoryStore) -> None:
    store.events.record([Event.new("cite", "m1", at=T0), Event.new("cite", "m1", at=T0 +
                         timedelta(days=2)), Event.new("cite", "m2", at=T0),
                         Event.new("recall", "m3", at=T0)])
    latest = {r["memory_id"]: (r["at"], r["count"])
              for r in store.events.latest("cite").to_pylist()}
    assert latest == {"m1": (T0 + timedelta(days=2), 2), "m2": (T0, 1)}
    recent = store.events.latest("cite", since=T0 + timedelta(days=1))
    assert recent["memory_id"].to_pylist() == ["m1"]
    assert sorted(e.memory_id for e in store.events.query(memory_ids=["m2", "m3"])) == ["m2", "m3"]
    assert store.events.query(memory_ids=[]) == []


def test_a_citation_written_after_an_empty_answer_is_found_next_time(store_path: str) -> None:
    """`latest` skips the query while the tenant has no event of the kind (counted per table
    version): a citation from another handle, or another tenant's, must not be missed or
    leak in."""
    store, ids = _filled(store_path)
    assert store.events.latest("cite").num_rows == 0
    other = MemoryStore.open(store_path, embedder=FakeEmbedder(), tenant="beta")
    other.events.record([Event.new("cite", "elsewhere", at=T0)])
    assert store.events.latest("cite").num_rows == 0
    writer = MemoryStore.open(store_path, embedder=FakeEmbedder())
    writer.events.record([Event.new("recall", ids[1], at=T0)])
    assert store.events.latest("cite").num_rows == 0
    writer.events.record([Event.new("cite", ids[0], at=T0)])
    assert store.events.latest("cite")["memory_id"].to_pylist() == [ids[0]]
    assert store.events.latest("recall")["memory_id"].to_pylist() == [ids[1]]


def test_a_bad_event_is_refused_with_its_problem(store: MemoryStore) -> None:
    with pytest.raises(InvalidRecordError, match="unknown event kind 'liked'"):
        store.events.record([Event.new("liked", "m1")])
    with pytest.raises(InvalidRecordError, match="non-empty memory_id"):
        store.events.record([Event.new("cite", " ")])
    assert store.events.query() == []


def test_a_read_only_store_refuses_to_record_events(store_path: str) -> None:
    _filled(store_path)
    ro = MemoryStore.open(store_path, embedder=FakeEmbedder(), read_only=True)
    with pytest.raises(ReadOnlyError):
        ro.events.record([Event.new("cite", "m1")])


def _make_v1(path: str) -> list[str]:
    """A store as schema v1 left it: no events table, version 1 on every table."""
    _, ids = _filled(path)
    db = lancedb.connect(path)
    db.drop_table("events")
    for name in ("memories", "edges", "audit"):
        db.open_table(name).to_lance().update_schema_metadata(
            {META_SCHEMA_VERSION.decode(): "1"})
    return ids


def test_a_v1_store_opens_read_only_as_it_is(store_path: str) -> None:
    ids = _make_v1(store_path)
    ro = MemoryStore.open(store_path, embedder=FakeEmbedder(), read_only=True)
    assert ro.tables.events is None and ro.events.query() == []
    assert ro.count() == 3 and set(ro.ids()) == set(ids)
    assert not (Path(store_path) / "events.lance").exists()
    assert schema_version_of(ro.tables.memories.schema) == 1


def test_a_writable_open_upgrades_a_v1_store_in_place(store_path: str, tmp_path: Path) -> None:
    ids = _make_v1(store_path)
    store = MemoryStore.open(store_path, embedder=FakeEmbedder())
    for table in store.tables.named().values():
        assert schema_version_of(table.schema) == 2
    assert set(store.ids()) == set(ids)
    assert [e.action for e in store.audit.entries()] == ["add"]
    store.events.record([Event.new("cite", ids[0], at=T0)])
    # a second open finds it upgraded and changes nothing
    again = MemoryStore.open(store_path, embedder=FakeEmbedder())
    assert [e.memory_id for e in again.events.query()] == [ids[0]]
    written = export_store(again, tmp_path / "x.ndjson")
    assert written.manifest.counts["event"] == 1


def test_export_and_import_carry_the_events(store_path: str, tmp_path: Path) -> None:
    store, ids = _filled(store_path)
    store.events.record([Event.new("cite", ids[0], at=T0, actor="agent-7",
                                   metadata={"answer": "a1"}),
                         Event.new("recall", ids[1], at=T0, session_id="s", query="pool")])
    path = tmp_path / "x.ndjson"
    written = export_store(store, path)
    assert written.manifest.record_types == ("memory", "edge", "event")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert [d["event_kind"] for d in lines if d["kind"] == "event"] == \
        [e.event_kind for e in sorted(store.events.query(), key=lambda e: e.id)]

    other = MemoryStore.open(str(tmp_path / "other"), embedder=FakeEmbedder(), tenant="t2")
    report = import_file(other, path)
    assert report.events_added == 2
    assert sorted((e.event_kind, e.memory_id, e.actor, e.tenant) for e in other.events.query()) == [
        ("cite", ids[0], "agent-7", "t2"), ("recall", ids[1], "memlens", "t2")]
    assert other.events.query(kinds=["recall"])[0].query == "pool"
    again = import_file(other, path, mode="merge")
    assert again.events_added == 0 and again.events_skipped == 2


def test_a_filtered_export_carries_only_its_memories_events(store_path: str,
                                                            tmp_path: Path) -> None:
    store, ids = _filled(store_path)
    store.upsert([Memory.new("other project memory", "fact", project="p2")])
    other = next(iter(store.ids(Filter(project="p2"))))
    store.events.record([Event.new("cite", ids[0], at=T0), Event.new("cite", other, at=T0)])
    written = export_store(store, tmp_path / "p2.ndjson", filter=Filter(project="p2"))
    assert written.manifest.counts == {"memory": 1, "edge": 0, "event": 1}


def test_with_the_speed_up_off_the_events_log_answers_the_same_and_keeps_nothing(
        store_path: str) -> None:
    """`accel=False` covers the events log too: its count of a kind is asked again at every
    call (so a citation another process writes is seen at once), and every answer equals
    the speed-up layer's."""
    writer, ids = _filled(store_path)
    fast = MemoryStore.open(store_path, embedder=FakeEmbedder())
    plain = MemoryStore.open(store_path, embedder=FakeEmbedder(), accel=False)
    assert not fast.events.has_kind("cite") and not plain.events.has_kind("cite")
    writer.events.record([Event.new("cite", ids[0], tenant="default", at=T0)])
    for handle in (fast, plain):
        assert handle.events.has_kind("cite")
        latest = handle.events.latest("cite").to_pylist()
        assert [(r["memory_id"], r["count"]) for r in latest] == [(ids[0], 1)]
    # nothing of the plain handle's answers was kept between the calls
    assert plain.events._seen == set() and fast.events._seen == {"cite"}
