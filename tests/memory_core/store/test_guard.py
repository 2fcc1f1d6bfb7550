"""Recovery of a dead writer's journal never breaks or blocks the store (issue 42, items 1
and 15): a journal whose versions are gone, lack files, or belong to a table dropped and
made again since is set aside with one audited line; a purge's clean-up journal is finished,
never rolled back."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memory_core.curation import delete
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from memory_core.store.lock import WriteLock
from tests.conftest import FakeEmbedder


def _open(path: str) -> MemoryStore:
    return MemoryStore.open(path, embedder=FakeEmbedder())


def _contents(store: MemoryStore) -> list[str]:
    return sorted(m.content for m in store.list(Filter(status=STATUSES), limit=None))


def _dead_writer(store: MemoryStore, versions: dict[str, int], *, phase: str = "write") -> None:
    """Leave the journal a writer killed half way leaves (the lock is free again)."""
    _dead_writer_at(store, versions, started=time.time(), phase=phase)


def _dead_writer_at(store: MemoryStore, versions: dict[str, int], *, started: float,
                    phase: str = "write") -> None:
    """A dead writer's journal, started at `started` (epoch seconds)."""
    WriteLock.of(Path(store.uri)).journal_path.write_text(json.dumps(
        {"action": "import", "pid": 1, "phase": phase, "started_at": started,
         "versions": versions}), encoding="utf-8")


def _recoveries(store: MemoryStore) -> list[str]:
    return [e.reason or "" for e in store.audit.entries(limit=100) if e.action == "recover"]


def test_a_journal_of_dropped_tables_does_not_block_a_new_store(store_path: str) -> None:
    first = _open(store_path)
    first.add([Memory.new(f"old memory {i}", "fact") for i in range(3)])
    first.add([Memory.new("one more", "fact")])
    versions = first.table_versions()  # past what fresh tables start at
    first.bulk.drop_tables()
    _dead_writer(first, {name: v + 5 for name, v in versions.items()})
    fresh = _open(store_path)  # was: ValueError: Version N no longer exists
    assert _contents(fresh) == []
    assert fresh.guard.recovered is not None and "no longer on disk" in fresh.guard.recovered
    assert len(_recoveries(fresh)) == 1
    assert not WriteLock.of(Path(store_path)).journal_path.exists()
    fresh.add([Memory.new("a new memory", "fact")])  # writes go on
    assert _contents(fresh) == ["a new memory"]


def test_a_journal_is_not_applied_to_a_table_made_again_since(store_path: str) -> None:
    first = _open(store_path)
    first.add([Memory.new("old memory", "fact")])
    recorded = first.table_versions()
    first.bulk.drop_tables()
    second = _open(store_path)
    for i in range(recorded["memories"] + 2):  # the new table outgrows the journal's number
        second.add([Memory.new(f"new memory {i}", "fact")])
    # the dead writer journaled before the drop (a minute ago, say)
    _dead_writer_at(second, recorded, started=time.time() - 60)
    third = _open(store_path)
    # the new table's memories stay: its version `recorded` is not the one the journal meant
    assert len(_contents(third)) == recorded["memories"] + 2
    assert third.guard.recovered is not None and "made again" in third.guard.recovered
    assert len(_recoveries(third)) == 1


def test_a_journal_whose_version_lost_its_files_keeps_the_latest(store_path: str) -> None:
    store = _open(store_path)
    store.add([Memory.new(f"memory {i}", "fact") for i in range(4)])
    before = store.table_versions()
    store.add([Memory.new("written by the dead writer", "fact")])
    table = store.tables.memories
    table.to_lance().optimize.compact_files()  # the latest version no longer needs old files
    table.checkout_latest()
    old = {f.path for frag in table.to_lance().checkout_version(before["memories"])
           .get_fragments() for f in frag.metadata.files}
    new = {f.path for frag in table.to_lance().get_fragments() for f in frag.metadata.files}
    gone = sorted(old - new)
    assert gone
    (Path(store_path) / "memories.lance" / "data" / gone[0]).unlink()
    _dead_writer(store, before)
    reopened = _open(store_path)  # was: restored to the broken version, then unopenable
    assert len(_contents(reopened)) == 5
    recovered = reopened.guard.recovered
    assert recovered is not None and "files that are gone" in recovered
    # the other tables stay too: restoring them alone would mix before and after
    assert "audit kept at their latest versions too" in reopened.guard.recovered
    assert "no table restored" in reopened.guard.recovered


def test_a_clean_up_journal_is_finished_not_rolled_back(store_path: str) -> None:
    store = _open(store_path)
    store.add([Memory.new(f"memory {i}", "fact") for i in range(3)])
    store.add([Memory.new("another", "fact")])
    assert len(store.changes.versions_on_disk("memories")) > 1
    _dead_writer(store, store.table_versions(), phase="cleanup")
    assert "still on disk" in (MemoryStore.open(store_path, embedder=FakeEmbedder(),
                                                read_only=True).guard.interrupted_write() or "")
    reopened = _open(store_path)
    assert len(_contents(reopened)) == 4  # nothing rolled back
    assert reopened.changes.versions_on_disk("memories") == [reopened.version]
    assert reopened.guard.recovered is not None and "was finished" in reopened.guard.recovered


def test_a_purge_removes_old_versions_only_after_its_commit(
        store_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _open(store_path)
    store.add([Memory.new("keep me", "fact")])
    secret = Memory.new("the secret to purge", "fact")
    store.add([secret])
    lock = WriteLock.of(Path(store_path))
    seen: list[tuple[str | None, int]] = []
    from memory_core.store import bulk

    removal = bulk.remove_old_versions

    def watched(table: object) -> int:
        entry = lock.read_journal()
        seen.append((entry.phase if entry else None, entry.versions["memories"] if entry else 0))
        return removal(table)

    monkeypatch.setattr(bulk, "remove_old_versions", watched)
    delete(store, [secret.id], purge=True)
    # every table's removal ran under a journal of the committed versions, never before
    assert seen and {phase for phase, _ in seen} == {"cleanup"}
    assert {v for _, v in seen} == {store.version}
    assert store.changes.versions_on_disk("memories") == [store.version]
    assert _contents(store) == ["keep me"]


def test_an_outage_journal_does_not_block_a_fresh_bucket_at_the_same_uri(
        s3_uri: str, s3_env: object, tmp_path: Path) -> None:
    """An import cut off by an outage leaves its journal in the local lock folder; a fresh
    bucket at the same URI then opens (was: `Version 2 no longer exists` until the journal
    was deleted by hand)."""
    from memory_core.model.config import Settings
    from memory_core.store.lock import control_folder

    settings = Settings.from_env(store_uri=s3_uri, model_cache=tmp_path / "cache")
    old = MemoryStore.open(settings=settings, embedder=FakeEmbedder())
    for i in range(3):
        old.add([Memory.new(f"memory {i} of the old bucket", "fact")])
    versions = old.table_versions()
    old.bulk.drop_tables()  # the bucket is emptied and made again
    lock = WriteLock.of(control_folder(s3_uri, tmp_path / "cache"))
    lock.journal_path.write_text(json.dumps(
        {"action": "import", "pid": 1, "phase": "write", "started_at": time.time(),
         "versions": versions}), encoding="utf-8")
    fresh = MemoryStore.open(settings=settings, embedder=FakeEmbedder())  # what `init` opens
    assert _contents(fresh) == []
    assert fresh.guard.recovered is not None and "no longer on disk" in fresh.guard.recovered
    assert not lock.journal_path.exists()
    fresh.add([Memory.new("the first memory of the new bucket", "fact")])
    assert _contents(fresh) == ["the first memory of the new bucket"]
