"""Recalls fold the small data files their access updates leave: a store an agent recalls from
all day keeps a bounded number of files, an up-to-date full-text index, and every version."""

from __future__ import annotations

import pytest

from memory_core.model.records import Memory
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore, writes


def _files(table: object) -> int:
    return int(table.stats()["fragment_stats"]["num_fragments"])  # type: ignore[attr-defined]


def test_recalls_fold_the_files_their_access_updates_leave(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writes, "FOLD_FRAGMENTS", 4)
    memories = [Memory.new(f"deploy note {i}: the release train leaves on tuesday",
                           memory_type="lesson") for i in range(6)]
    store.add(memories)
    versions_before = len(store.tables.memories.list_versions())
    for _ in range(12):
        assert recall(store, "release train tuesday", 3, tier="compact")
    tables = (store.tables.memories, store.tables.audit, store.tables.events)
    assert all(_files(t) <= 5 for t in tables)  # at most the limit and the newest write
    counted = {m.id: m.access_count for m in store.list(limit=None)}
    assert sum(counted.values()) == 12 * 3  # nothing lost by the compactions
    assert len(store.events.query(kinds=["recall"])) == 12 * 3
    # every version is kept: undo and replay read them
    assert len(store.tables.memories.list_versions()) > versions_before + 12
    # a fold brings the full-text index up to date: the moved rows are indexed again
    with store.writing("fold"):
        assert writes.fold_fragments(store.tables.memories, limit=0)
    fts = [i for i in store.tables.memories.list_indices() if i.index_type == "FTS"]
    stats = store.tables.memories.index_stats(fts[0].name)
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (6, 0)


def test_a_table_under_the_limit_is_left_alone(store: MemoryStore) -> None:
    store.add([Memory.new("one memory", memory_type="lesson")])
    version = store.tables.memories.version
    assert writes.fold_fragments(store.tables.memories) is False
    assert store.tables.memories.version == version


def test_the_recalls_tables_fold_together(store: MemoryStore,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """When one of the tables a recall writes passes the limit, all three are compacted in
    that recall, so later they fill up and fold in the same recall: one slow recall per
    `FOLD_FRAGMENTS`, not one per table."""
    monkeypatch.setattr(writes, "FOLD_FRAGMENTS", 6)
    store.add([Memory.new(f"note {i} on the release train", memory_type="lesson")
               for i in range(4)])
    tables = (store.tables.memories, store.tables.audit, store.tables.events)
    folded_at = []
    for n in range(30):
        before = [_files(t) for t in tables]
        recall(store, "release train", 2, tier="compact")
        after = [_files(t) for t in tables]
        if any(a < b for a, b in zip(after, before, strict=True)):
            folded_at.append(n)
            assert all(a <= 2 for a in after), after  # every table, not only the full one
    assert len(folded_at) >= 3
    # after the first fold the three fill up in step: folds come every few recalls, together
    gaps = {b - a for a, b in zip(folded_at[1:], folded_at[2:], strict=False)}
    assert len(gaps) == 1 and gaps.pop() >= 4
