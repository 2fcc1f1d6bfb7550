"""Stores written before audit rows had a `batch_id` gain the column when opened writable,
and read fine when opened read-only."""

from __future__ import annotations

from memory_core.curation import archive, audit_batches
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder


def _old_store(path: str) -> str:
    store = MemoryStore.open(path, embedder=FakeEmbedder())
    memory_id = store.add([Memory.new("written by an older memlens", "fact")]).inserted[0]
    store.tables.audit.drop_columns(["batch_id"])  # as schema v1 first shipped
    return memory_id


def test_a_read_only_open_reads_the_old_audit(store_path: str) -> None:
    _old_store(store_path)
    store = MemoryStore.open(store_path, embedder=FakeEmbedder(), read_only=True)
    assert "batch_id" not in store.tables.audit.schema.names
    assert [e.action for e in store.audit.entries()] == ["add"]
    assert store.audit.entries()[0].batch_id is None
    assert [b.action for b in audit_batches(store)] == ["add"]


def test_a_writable_open_adds_the_column_and_curation_works(store_path: str) -> None:
    memory_id = _old_store(store_path)
    store = MemoryStore.open(store_path, embedder=FakeEmbedder())
    assert "batch_id" in store.tables.audit.schema.names
    report = archive(store, [memory_id])
    assert [b.batch_id for b in audit_batches(store)] == [report.batch_id, None]
