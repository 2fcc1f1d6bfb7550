"""`store.accel.latest`: the memories table's Lance dataset at its latest version, checked without
a LanceDB round trip, sees every write (this handle's or another process's) at once."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from memory_core.store.accel.current_dataset import LatestDataset


def test_each_write_shows_in_the_next_version_and_dataset(store_path: str,
                                                          store: MemoryStore) -> None:
    store.add([Memory.new("one", "fact")])
    before = store.accel.latest.version()
    assert before == int(store.tables.memories.version)
    other = MemoryStore.open(store_path, embedder=store.embedder)
    other.add([Memory.new("two", "fact")])
    assert store.accel.latest.version() > before
    assert store.accel.latest.version() == int(other.tables.memories.version)
    dataset = store.accel.latest.current()
    assert sorted(dataset.to_table(columns=["content"])["content"].to_pylist()) == ["one", "two"]
    first = store.list()[0]
    store.upsert([replace(first, content="one, edited")], reason="a test")
    assert sorted(store.accel.latest.current().to_table(columns=["content"])["content"]
                  .to_pylist()) == sorted(["one, edited", "two"] if first.content == "one"
                                          else ["one", "one, edited"])


def test_the_session_order_sees_another_handles_write(store_path: str,
                                                      store: MemoryStore) -> None:
    store.add([Memory.new("a turn", "observation", session_id="s1")])
    first = store.list()[0]
    seeds = {row: doc for doc, row in store.rows.locate([first.id], store.predicate()).items()}
    assert len(store.queries.session_order().around(seeds, timedelta(hours=1)).rows) == 1
    other = MemoryStore.open(store_path, embedder=store.embedder)
    other.add([Memory.new("the next turn", "observation", session_id="s1",
                          created_at=first.created_at + timedelta(minutes=1))])
    assert len(store.queries.session_order().around(seeds, timedelta(hours=1)).rows) == 2


class _NoLance:
    """A table handle that cannot give a Lance dataset (as a remote table cannot)."""

    version = 7

    def to_lance(self) -> Any:
        raise NotImplementedError("no dataset here")


def test_a_table_without_a_dataset_falls_back_to_its_own_version() -> None:
    latest = LatestDataset(lambda: _NoLance())
    assert latest.current() is None
    assert latest.version() == 7
