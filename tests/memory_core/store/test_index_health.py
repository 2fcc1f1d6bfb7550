"""`index_health`: missing and lagging indexes and small fragments, past their thresholds,
with the command that fixes them (thresholds lowered here so a small store crosses them)."""

from __future__ import annotations

import pytest

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from memory_core.store.index_health import (
    SMALL_FRAGMENTS,
    UNINDEXED_ROWS,
    index_fix_command,
    index_health,
)
from memory_core.store.indexes import SCALAR_INDEXES, ensure_indexes


def _add(store: MemoryStore, n: int, start: int = 0) -> None:
    store.add([Memory.new(f"note number {i}", "fact", id=f"m{i}")
               for i in range(start, start + n)])


def test_a_small_store_is_never_told_to_index(store: MemoryStore) -> None:
    _add(store, 3)
    health = index_health(store)
    assert (health.rows, health.vector_rows, health.fragments) == (3, 3, 1)
    assert not health.outgrown and health.gaps == () and health.warning() is None
    assert (UNINDEXED_ROWS, SMALL_FRAGMENTS) == (10_000, 30)


def test_missing_indexes_are_named_with_the_rows(store: MemoryStore,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.index_health.UNINDEXED_ROWS", 5)
    monkeypatch.setattr("memory_core.store.index_health.VECTOR_THRESHOLD", 10)
    _add(store, 12)
    health = index_health(store)
    missing = {g.column: g.kind for g in health.gaps if g.missing}
    assert missing == {**SCALAR_INDEXES, "content": "FTS", "vector": "IVF_HNSW_SQ"}
    assert all(g.unindexed_rows == 12 for g in health.gaps)
    [problem] = health.problems()
    assert problem.startswith("no index yet on tenant, status,") and "(12 rows, 12 with " \
        "vectors)" in problem
    warning = health.warning(index_fix_command(store.uri))
    assert warning is not None and warning.startswith("The memories table (12 rows, every "
                                                      "tenant) has outgrown its indexes")
    assert warning.endswith(f"Run `memlens index --store {store.uri}` to compact it and "
                            f"bring every index up to date.")


def test_rows_written_since_the_last_index_run_are_counted(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.index_health.UNINDEXED_ROWS", 5)
    _add(store, 12)
    ensure_indexes(store)
    assert not index_health(store).outgrown  # compacted and every index current
    _add(store, 4, start=100)
    assert not index_health(store).outgrown  # 4 rows behind: below the threshold
    _add(store, 3, start=200)
    health = index_health(store)
    assert {g.unindexed_rows for g in health.gaps} == {7}
    assert {g.column for g in health.gaps} == {*SCALAR_INDEXES, "content"}
    [problem] = health.problems()
    assert problem.startswith("7 rows not yet in the indexes on ")


def test_small_fragments_past_the_threshold(store: MemoryStore,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.index_health.SMALL_FRAGMENTS", 3)
    for i in range(3):
        _add(store, 1, start=i)  # one commit, one fragment each
    assert not index_health(store).outgrown
    _add(store, 1, start=3)
    health = index_health(store)
    assert health.outgrown and health.gaps == ()
    assert health.problems() == ["4 small fragments of 4 (every read opens each one)"]
    assert health.to_dict()["small_fragments"] == 4


@pytest.mark.parametrize("uri, tenant, command", [
    (None, None, "memlens index"),
    ("/data/my store", None, "memlens index --store '/data/my store'"),
    ("s3://b/p", "x; rm -rf ~", "memlens index --store s3://b/p --tenant 'x; rm -rf ~'"),
])
def test_the_fix_is_quoted_for_the_shell(uri: str | None, tenant: str | None,
                                         command: str) -> None:
    assert index_fix_command(uri, tenant) == command
