"""Counts remembered per table version (`store.count`): a repeated count is not counted
again, and any write, by this handle or another process's, shows in the next count."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from memory_core.store.accel.count_cache import MAX_PREDICATES, VersionCounts


class _CountingTable:
    """A real LanceDB table that records how often it was asked to count."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self.counted = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def count_rows(self, predicate: str) -> int:
        self.counted += 1
        return int(self._table.count_rows(predicate))


def test_a_count_is_remembered_until_the_table_changes(store: MemoryStore) -> None:
    store.add([Memory.new("one", "fact", project="a"), Memory.new("two", "fact", project="b")])
    table = _CountingTable(store.tables.memories)
    counts = VersionCounts()
    where = store.predicate(Filter(project="a"))
    assert counts.count(table, where) == 1
    assert counts.count(table, where) == 1
    assert table.counted == 1
    store.add([Memory.new("three", "fact", project="a")])
    assert counts.count(table, where) == 2
    assert table.counted == 2
    counts.invalidate()
    assert counts.count(table, where) == 2
    assert table.counted == 3


def test_another_handles_write_shows_in_the_next_count(store_path: str,
                                                       store: MemoryStore) -> None:
    store.add([Memory.new("one", "fact", project="a")])
    assert store.count(Filter(project="a")) == 1
    other = MemoryStore.open(store_path, embedder=store.embedder)
    other.add([Memory.new("two", "fact", project="a")])
    assert store.count(Filter(project="a")) == 2
    first = store.list(Filter(project="a"))[0]
    other.upsert([replace(first, status="archived")], reason="a test")
    assert store.count(Filter(project="a")) == 1


def test_the_cache_holds_a_bounded_number_of_predicates(store: MemoryStore) -> None:
    store.add([Memory.new("one", "fact", project="p0")])
    table = _CountingTable(store.tables.memories)
    counts = VersionCounts()
    wheres = [store.predicate(Filter(project=f"p{i}")) for i in range(MAX_PREDICATES + 1)]
    assert [counts.count(table, w) for w in wheres[:2]] == [1, 0]
    for where in wheres[2:]:
        counts.count(table, where)
    assert table.counted == MAX_PREDICATES + 1
    counts.count(table, wheres[0])  # the oldest was dropped: counted again
    assert table.counted == MAX_PREDICATES + 2
    counts.count(table, wheres[-1])  # the newest is still there
    assert table.counted == MAX_PREDICATES + 2
