"""MemoryStore on real LanceDB in tmp_path, with the deterministic fake embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.embedding import UnavailableEmbedder
from memory_core.model.errors import (
    InvalidRecordError,
    MemoryNotFoundError,
    ModelMismatchError,
    ReadOnlyError,
    SchemaVersionError,
    StoreLocationError,
    StoreNotFoundError,
    TenantNotFoundError,
)
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import (
    META_DIMENSION,
    META_MODEL_ID,
    META_SCHEMA_VERSION,
    SCHEMA_VERSION,
)
from memory_core.store import MemoryStore
from memory_core.store.tables import FILE_FORMAT
from tests.conftest import FAKE_DIM, FakeEmbedder


def _mem(content: str, **kw) -> Memory:
    kw.setdefault("memory_type", "observation")
    return Memory.new(content, **kw)


def test_new_store_records_schema_version_and_model(store: MemoryStore) -> None:
    schema = store.tables.memories.schema
    assert schema.metadata[META_SCHEMA_VERSION] == str(SCHEMA_VERSION).encode()
    vector_meta = schema.field("vector").metadata
    assert vector_meta[META_MODEL_ID] == b"test/fake-bow"
    assert vector_meta[META_DIMENSION] == str(FAKE_DIM).encode()
    assert store.tables.edges.schema.metadata[META_SCHEMA_VERSION] == b"2"
    assert store.tables.audit.schema.metadata[META_SCHEMA_VERSION] == b"2"
    assert store.tables.events.schema.metadata[META_SCHEMA_VERSION] == b"2"


def test_add_embeds_and_get_returns_the_memory(store: MemoryStore) -> None:
    memory = _mem("Mason needs explicit file lists in spawn context", project="herd",
                  agent="steve", tags=["spawn"])
    report = store.add([memory])
    assert report.inserted == (memory.id,)
    got = store.get(memory.id, with_vectors=True)
    assert got.content == memory.content
    assert got.project == "herd" and got.tags == ("spawn",)
    assert got.embedding_status == "ok"
    assert got.vector is not None and len(got.vector) == FAKE_DIM
    assert got.created_at == memory.created_at


def test_exact_and_whitespace_duplicates_are_reported_not_inserted(store: MemoryStore) -> None:
    first = _mem("Use uv for Python installs")
    store.add([first])
    again = _mem("Use  uv for Python\ninstalls ")
    twin = _mem("A different memory")
    twin_copy = _mem("A different memory")
    report = store.add([again, twin, twin_copy])
    assert report.inserted == (twin.id,)
    assert set(report.duplicates) == {(again.id, first.id), (twin_copy.id, twin.id)}
    assert store.count() == 2


def test_dedup_off_keeps_duplicates(store: MemoryStore) -> None:
    store.add([_mem("same"), _mem("same")], dedup=False)
    assert store.count() == 2


def test_every_write_appends_an_audit_row(store: MemoryStore) -> None:
    a, b = _mem("alpha fact"), _mem("beta fact")
    store.add([a, b], reason="test import")
    store.edges.add([Edge.new(a.id, b.id, "causes")])
    store.upsert([a.with_changes(content="alpha fact, corrected")], reason="fix typo")
    entries = store.audit.entries()
    assert [e.action for e in entries] == ["upsert", "add_edges", "add"]
    upsert = entries[0]
    assert upsert.target_ids == (a.id,)
    assert upsert.before[0]["content"] == "alpha fact"
    assert upsert.after[0]["content"] == "alpha fact, corrected"
    assert upsert.reason == "fix typo"
    assert upsert.table_version == store.version
    assert [e.action for e in store.audit.entries(memory_id=b.id)] == ["add_edges", "add"]


def test_upsert_reports_inserted_updated_unchanged(store: MemoryStore) -> None:
    a, b = _mem("one"), _mem("two")
    store.add([a, b])
    c = _mem("three")
    report = store.upsert([store.get(a.id), b.with_changes(why="because"), c])
    assert report.unchanged == (a.id,)
    assert report.updated == (b.id,)
    assert report.inserted == (c.id,)
    assert store.get(b.id).why == "because"
    assert store.get(b.id, with_vectors=True).vector is not None  # content same: vector kept


def test_add_with_existing_id_is_refused(store: MemoryStore) -> None:
    a = _mem("one")
    store.add([a])
    with pytest.raises(InvalidRecordError, match="already exists"):
        store.add([a.with_changes(content="other")])


def test_list_filters_and_status_defaults(store: MemoryStore) -> None:
    store.add([
        _mem("d1", memory_type="decision", project="herd"),
        _mem("d2", memory_type="decision", project="atlas"),
        _mem("p1", memory_type="pattern", project="herd"),
        _mem("old", memory_type="decision", project="herd", status="superseded"),
        _mem("gone", memory_type="decision", project="herd", status="archived"),
    ])
    got = store.list(Filter(project="herd", memory_type="decision"))
    assert [m.content for m in got] == ["d1"]
    assert store.count() == 3
    both = store.list(Filter(project="herd", memory_type="decision",
                             status=["active", "superseded", "archived"]))
    assert sorted(m.content for m in both) == ["d1", "gone", "old"]
    assert store.count(Filter(status="archived")) == 1


def test_list_orders_newest_first_and_pages(store: MemoryStore) -> None:
    store.add([_mem(f"m{i}", created_at=f"2026-05-0{i}T00:00:00Z") for i in range(1, 6)])
    assert [m.content for m in store.list(limit=2)] == ["m5", "m4"]
    assert [m.content for m in store.list(limit=2, offset=2)] == ["m3", "m2"]
    assert [m.content for m in store.list(descending=False, limit=1)] == ["m1"]


def test_reads_are_scoped_to_one_tenant(store_path: str, fake_embedder: FakeEmbedder) -> None:
    acme = MemoryStore.open(store_path, embedder=fake_embedder, tenant="acme")
    other = MemoryStore.open(store_path, embedder=fake_embedder, tenant="globex")
    a = _mem("acme secret plan")
    acme.add([a])
    other.add([_mem("globex roadmap"), _mem("acme secret plan")])  # same text: not a dup here
    assert acme.count() == 1 and other.count() == 2
    assert [m.content for m in acme.list()] == ["acme secret plan"]
    with pytest.raises(MemoryNotFoundError):
        other.get(a.id)
    with pytest.raises(InvalidRecordError, match="cannot be used in this tenant") as err:
        other.upsert([a])
    # neither the other tenant nor that it holds the id is revealed (issue 20, item 14)
    assert "acme" not in str(err.value) and "another tenant" not in str(err.value)
    with pytest.raises(InvalidRecordError, match="cannot be used in this tenant") as err:
        other.add([a])
    assert "acme" not in str(err.value)
    assert acme.tenants() == ["acme", "globex"]


def test_unknown_tenant_is_refused_without_naming_the_others(
        store: MemoryStore, store_path: str, fake_embedder: FakeEmbedder) -> None:
    store.add([_mem("x")])
    MemoryStore.open(store_path, embedder=fake_embedder, tenant="bravo").add([_mem("y")])
    with pytest.raises(TenantNotFoundError, match="'nope' has no memories") as refused:
        MemoryStore.open(store_path, embedder=fake_embedder, tenant="nope", require_tenant=True)
    # the tenants are private to each other: a mistyped name must not list them
    assert "bravo" not in str(refused.value) and "default" not in str(refused.value)


def test_pending_when_embedder_is_unavailable(store_path: str) -> None:
    broken = UnavailableEmbedder("test/fake-bow", FAKE_DIM, "model files missing")
    store = MemoryStore.open(store_path, embedder=broken)
    report = store.add([_mem("written without a model")])
    assert report.pending == 1 and "model files missing" in (report.embedding_error or "")
    memory = store.get(report.inserted[0], with_vectors=True)
    assert memory.embedding_status == "pending" and memory.vector is None
    assert store.count(Filter(embedding_status="pending")) == 1


def test_upsert_without_an_embedder_writes_pending_rows(store_path: str) -> None:
    # merge_insert refused null vectors ("variable length vectors") before on_bad_vectors
    broken = UnavailableEmbedder("test/fake-bow", FAKE_DIM, "offline")
    store = MemoryStore.open(store_path, embedder=broken)
    report = store.upsert([_mem("first"), _mem("second")], reason="no model")
    assert len(report.inserted) == 2 and report.pending == 2
    again = store.upsert([store.get(report.inserted[0]).with_changes(content="first, edited")])
    assert again.updated == (report.inserted[0],) and again.pending == 1
    assert store.get(report.inserted[0]).content == "first, edited"
    assert store.count(Filter(embedding_status="pending")) == 2


def test_reembed_fills_pending(store_path: str, fake_embedder: FakeEmbedder) -> None:
    from memory_core.reembed import fill_pending

    broken = UnavailableEmbedder("test/fake-bow", FAKE_DIM, "offline")
    MemoryStore.open(store_path, embedder=broken).add([_mem("a"), _mem("b")])
    store = MemoryStore.open(store_path, embedder=fake_embedder)
    report = fill_pending(store)
    assert report.embedded == 2
    assert store.count(Filter(embedding_status="ok")) == 2
    assert store.audit.entries()[0].action == "reembed"
    assert fill_pending(store).embedded == 0


class OtherEmbedder(FakeEmbedder):
    model_id = "test/other"
    dimension = 8

    def embed_batch(self, texts):  # type: ignore[no-untyped-def]
        return super().embed_batch(texts)[:, :8]


def test_model_mismatch_names_both_models_and_the_fix(store: MemoryStore,
                                                      store_path: str) -> None:
    store.add([_mem("x")])
    with pytest.raises(ModelMismatchError) as info:
        MemoryStore.open(store_path, embedder=OtherEmbedder())
    message = str(info.value)
    assert "test/fake-bow" in message and "test/other" in message
    assert "memlens reembed --model test/other" in message


def test_switch_model_rewrites_vectors_and_metadata(store: MemoryStore,
                                                    store_path: str) -> None:
    from memory_core.reembed import switch_model

    store.add([_mem("x"), _mem("y")])
    before = store.version
    report = switch_model(MemoryStore.open(store_path, embedder=OtherEmbedder(),
                                           check_vectors=False), OtherEmbedder())
    assert report.embedded == 2 and report.dimension == 8
    reopened = MemoryStore.open(store_path, embedder=OtherEmbedder())
    assert all(len(m.vector or ()) == 8 for m in reopened.list(with_vectors=True))
    assert reopened.version > before


def test_wrong_vector_dimension_is_refused_and_store_unchanged(store: MemoryStore) -> None:
    store.add([_mem("kept")])
    version = store.version
    with pytest.raises(InvalidRecordError, match="dimension 3"):
        store.add([_mem("good"), _mem("bad", vector=[0.1, 0.2, 0.3])])
    assert store.count() == 1 and store.version == version


def test_empty_content_is_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidRecordError, match="empty content"):
        store.add([_mem("   \n")])
    assert store.count() == 0


def test_unknown_memory_type_is_allowed_but_normalised(store: MemoryStore) -> None:
    store.add([_mem("x", memory_type="Design Review")])
    assert store.list()[0].memory_type == "design_review"


def test_store_path_that_is_a_file(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    path = tmp_path / "not-a-folder"
    path.write_text("hello")
    with pytest.raises(StoreLocationError, match="is a file"):
        MemoryStore.open(str(path), embedder=fake_embedder)
    assert path.read_text() == "hello"


def test_read_only_store_refuses_writes_and_does_not_create(tmp_path: Path,
                                                            fake_embedder: FakeEmbedder) -> None:
    with pytest.raises(StoreNotFoundError, match="memlens init"):
        MemoryStore.open(str(tmp_path / "none"), embedder=fake_embedder, read_only=True)
    MemoryStore.open(str(tmp_path / "s"), embedder=fake_embedder).add([_mem("x")])
    ro = MemoryStore.open(str(tmp_path / "s"), embedder=fake_embedder, read_only=True)
    with pytest.raises(ReadOnlyError):
        ro.add([_mem("y")])
    assert ro.count() == 1


def test_newer_schema_version_is_refused(store: MemoryStore, store_path: str,
                                         fake_embedder: FakeEmbedder) -> None:
    import lancedb

    from memory_core.model.codec import audit_schema

    db = lancedb.connect(store_path)
    db.drop_table("audit")
    schema = audit_schema().with_metadata({META_SCHEMA_VERSION: b"3"})
    db.create_table("audit", schema=schema)
    with pytest.raises(SchemaVersionError, match="schema version 3.*reads up to version 2"):
        MemoryStore.open(store_path, embedder=fake_embedder)


def test_edges_need_existing_endpoints(store: MemoryStore) -> None:
    a = _mem("a")
    store.add([a])
    with pytest.raises(InvalidRecordError, match="not a memory"):
        store.edges.add([Edge.new(a.id, "missing-id", "supports")])
    assert store.edges.list() == []


def test_edge_aliases(store: MemoryStore) -> None:
    a, b = _mem("new decision"), _mem("old decision")
    store.add([a, b])
    store.edges.add([Edge.new(b.id, a.id, "superseded_by"), Edge.new(a.id, b.id,
                                                                     "conflicts_with")])
    relations = {(e.source_id, e.target_id, e.relation) for e in store.edges.list()}
    assert relations == {(a.id, b.id, "supersedes"), (a.id, b.id, "contradicts")}
    assert len(store.edges.list(memory_id=a.id)) == 2


def test_history_lists_versions(store: MemoryStore) -> None:
    store.add([_mem("a")])
    store.add([_mem("b")])
    history = store.changes.history()
    assert history[-1].version == store.version
    assert history[-1].rows == 2


def test_new_tables_are_written_in_the_file_format_whose_row_takes_are_quicker(
        store: MemoryStore) -> None:
    """A search reads its hits back by row id; Lance format 2.1 takes them faster than
    LanceDB's default 2.2 (README.md, "Search latency"), so every new table is 2.1."""
    store.add([Memory.new("a note", "fact")])
    for table in (store.tables.memories, store.tables.edges, store.tables.audit,
                  store.tables.events):
        assert table.to_lance().data_storage_version == FILE_FORMAT == "2.1"
