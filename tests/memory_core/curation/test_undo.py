"""Undo puts the exact previous state back (the export, vectors included, is identical) and
refuses when a later change touched the same memories, naming it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memory_core.curation import (
    CurationReport,
    archive,
    audit_batches,
    delete,
    edit,
    merge,
    restore,
    supersede,
    undo,
)
from memory_core.model.errors import CurationConflictError, CurationError, VersionGoneError
from memory_core.store import MemoryStore
from tests.memory_core.curation.conftest import Corpus
from tests.memory_core.curation.helpers import export_body

ACTIONS: dict[str, Callable[[MemoryStore, list[str]], CurationReport]] = {
    "edit": lambda s, ids: edit(s, ids[0], content="rewritten entirely", tags=["new"],
                                importance="critical"),
    "archive": lambda s, ids: archive(s, ids[:3]),
    "supersede": lambda s, ids: supersede(s, ids[0], content="the successor decision"),
    "supersede by": lambda s, ids: supersede(s, ids[1], by=ids[0]),
    "merge": lambda s, ids: merge(s, ids[:3], ids[1]),
    "delete": lambda s, ids: delete(s, ids[:2]),
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_undo_restores_the_exact_previous_state(corpus: Corpus, tmp_path: Path,
                                                name: str) -> None:
    store = corpus.store
    before = export_body(store, tmp_path, "before")
    report = ACTIONS[name](store, corpus.ids)
    assert export_body(store, tmp_path, "during") != before
    back = undo(store, report.batch_id)
    assert back.action == "undo" and back.batch_id != report.batch_id
    assert export_body(store, tmp_path, "after") == before


def test_undo_of_an_undo_redoes(corpus: Corpus, tmp_path: Path) -> None:
    store = corpus.store
    report = merge(store, corpus.ids[:3], corpus.ids[0])
    done = export_body(store, tmp_path, "done")
    first = undo(store, report.batch_id)
    undo(store, first.batch_id)
    assert export_body(store, tmp_path, "redone") == done


def test_undo_twice_is_refused(corpus: Corpus) -> None:
    report = archive(corpus.store, corpus.ids[:2])
    first = undo(corpus.store, report.batch_id)
    with pytest.raises(CurationConflictError, match=f"already undone by batch "
                                                    f"'{first.batch_id}'"):
        undo(corpus.store, report.batch_id)


def test_undo_is_refused_after_a_later_change_to_the_same_memory(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    report = archive(store, ids[:2])
    later = edit(store, ids[1], why="edited after the archive")
    versions = store.table_versions()
    with pytest.raises(CurationConflictError) as caught:
        undo(store, report.batch_id)
    message = str(caught.value)
    assert ids[1] in message and "'edit'" in message and str(later.batch_id) in message
    assert store.table_versions() == versions
    # undoing the later batch first makes the earlier one undoable again
    undo(store, later.batch_id)
    undo(store, report.batch_id)
    assert store.get(ids[0]).status == "active"


def test_a_change_to_other_memories_does_not_block_undo(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    report = archive(store, [ids[0]])
    edit(store, ids[5], why="unrelated")
    undo(store, report.batch_id)
    assert store.get(ids[0]).status == "active"
    assert store.get(ids[5]).why == "unrelated"


def test_preview_of_undo_writes_nothing(corpus: Corpus) -> None:
    store = corpus.store
    report = restore(store, archive(store, corpus.ids[:2]).memory_ids)
    versions = store.table_versions()
    planned = undo(store, report.batch_id, dry_run=True)
    assert {(c.field, c.before, c.after) for c in planned.changes} == {
        ("status", "active", "archived")}
    assert store.table_versions() == versions


def test_unknown_batch_and_purge_batches_are_refused(corpus: Corpus) -> None:
    store = corpus.store
    with pytest.raises(CurationError, match="no batch 'nope'"):
        undo(store, "nope")
    earlier = archive(store, [corpus.ids[5]])
    purged = delete(store, [corpus.ids[7]], purge=True)
    with pytest.raises(CurationError, match="was a purge"):
        undo(store, purged.batch_id)
    with pytest.raises(VersionGoneError, match="no longer on disk"):
        undo(store, earlier.batch_id)


def test_audit_batches_group_rows_and_filter(corpus: Corpus) -> None:
    store = corpus.store
    report = delete(store, [corpus.ids[0]], reason="wrong")
    batches = audit_batches(store, action="delete")
    assert [b.batch_id for b in batches] == [report.batch_id]
    (batch,) = batches
    assert batch.undoable and batch.reason == "wrong" and batch.memory_ids == [corpus.ids[0]]
    assert len(batch.rows) == 2  # the memory row and the edge row
    everything = audit_batches(store, limit=100)
    assert {b.action for b in everything} >= {"add", "add_edges", "delete"}
    assert not next(b for b in everything if b.action == "add").undoable
    assert audit_batches(store, actor="somebody else") == []
    assert [b.batch_id for b in audit_batches(store, memory_id=corpus.ids[0])
            if b.batch_id] == [report.batch_id]
