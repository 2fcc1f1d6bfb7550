"""`store.streams`: a few columns in batches, scoped to the tenant and the filter, and the
ids that exist, looked up without a set of every id."""

from __future__ import annotations

import pyarrow as pa
import pytest

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder


@pytest.fixture
def shared(store: MemoryStore, fake_embedder: FakeEmbedder) -> MemoryStore:
    store.add([Memory.new(f"note {i}", "fact", id=f"d{i}", project="atlas" if i % 2 else None)
               for i in range(5)])
    store.add([Memory.new("old", "fact", id="d-old", status="archived")])
    other = MemoryStore.open(store.uri, tenant="acme", embedder=fake_embedder)
    other.add([Memory.new("acme note", "fact", id="x1", project="atlas")])
    return store


def test_batches_hold_the_tenants_rows_a_few_at_a_time(shared: MemoryStore) -> None:
    batches = list(shared.streams.batches(["id", "project"], batch_rows=2))
    assert all(b.num_rows <= 2 for b in batches) and len(batches) >= 3
    ids = sorted(i for b in batches for i in b.column("id").to_pylist())
    assert ids == [f"d{i}" for i in range(5)]  # active only, no acme row
    assert batches[0].schema.names == ["id", "project"]


def test_batches_follow_the_filter(shared: MemoryStore) -> None:
    every = Filter(status=STATUSES)
    assert sorted(a for col in shared.streams.iter_column("id", every)
                  for a in col.to_pylist()) == ["d-old", *[f"d{i}" for i in range(5)]]
    atlas = Filter(project="atlas")
    assert sorted(a for col in shared.streams.iter_column("id", atlas)
                  for a in col.to_pylist()) == ["d1", "d3"]


def test_a_batch_size_below_one_is_refused(shared: MemoryStore) -> None:
    with pytest.raises(ValueError, match="batch_rows must be at least 1, got 0"):
        shared.streams.batches(["id"], batch_rows=0)


def test_present_ids_are_the_tenants_own_of_any_status(shared: MemoryStore,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.streams.BATCH_ROWS", 2)
    asked = ["d1", "d1", "d-old", "x1", "missing"]
    assert sorted(shared.streams.present_ids(asked).to_pylist()) == ["d-old", "d1"]
    assert sorted(shared.streams.present_ids(pa.array(asked)).to_pylist()) == ["d-old", "d1"]
    assert shared.streams.present_ids([]).to_pylist() == []


def test_tenants_lists_every_tenant_once(shared: MemoryStore,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.memory_store.BATCH_ROWS", 2)
    assert shared.tenants() == ["acme", "default"]


def test_present_ids_through_the_id_index_too(shared: MemoryStore,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.store.indexes import ensure_indexes

    ensure_indexes(shared)  # a few ids on an indexed table: one IN query, no scan
    monkeypatch.setattr(shared.streams, "batches",
                        lambda *a, **k: pytest.fail("scanned the id column"))
    assert sorted(shared.streams.present_ids(["d2", "x1", "d-old", "nope"]).to_pylist()) == [
        "d-old", "d2"]
