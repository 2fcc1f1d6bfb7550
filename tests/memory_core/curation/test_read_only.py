"""A read-only store refuses every curation write with `ReadOnlyError` and keeps its
versions; previews, the audit and verification still work."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_core.curation import (
    archive,
    audit_batches,
    delete,
    edit,
    merge,
    preview,
    restore,
    supersede,
    undo,
    verify_deleted,
)
from memory_core.model.errors import ReadOnlyError
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.curation.conftest import corpus_of

WRITES: dict[str, Callable[[MemoryStore, list[str], str], object]] = {
    "edit": lambda s, ids, b: edit(s, ids[0], why="x"),
    "archive": lambda s, ids, b: archive(s, ids[:2]),
    "restore": lambda s, ids, b: restore(s, [ids[7]]),
    "supersede": lambda s, ids, b: supersede(s, ids[0], content="a successor"),
    "merge": lambda s, ids, b: merge(s, ids[:2], ids[0]),
    "delete": lambda s, ids, b: delete(s, [ids[1]]),
    "purge": lambda s, ids, b: delete(s, [ids[1]], purge=True),
    "undo": lambda s, ids, b: undo(s, b),
}


@pytest.fixture
def read_only(store_path: str, fake_embedder: FakeEmbedder) -> tuple[MemoryStore, list[str], str]:
    writable = MemoryStore.open(store_path, embedder=fake_embedder)
    ids = corpus_of(writable).ids
    archive(writable, [ids[7]])
    batch = archive(writable, [ids[6]]).batch_id
    assert batch
    return MemoryStore.open(store_path, embedder=fake_embedder, read_only=True), ids, batch


@pytest.mark.parametrize("name", sorted(WRITES))
def test_every_curation_write_is_refused(read_only: tuple[MemoryStore, list[str], str],
                                         name: str) -> None:
    store, ids, batch = read_only
    versions = store.table_versions()
    with pytest.raises(ReadOnlyError, match="read-only"):
        WRITES[name](store, ids, batch)
    assert store.table_versions() == versions


def test_previews_audit_and_verification_work_read_only(
        read_only: tuple[MemoryStore, list[str], str]) -> None:
    store, ids, batch = read_only
    versions = store.table_versions()
    assert preview(store, "archive", ids[:2]).count == 2
    assert preview(store, "edit", ids[0], content="new words entirely").changes
    assert preview(store, "undo", batch).count == 1
    assert batch in [b.batch_id for b in audit_batches(store)]
    assert not verify_deleted(store, ids[0]).passed  # it is live
    assert store.table_versions() == versions
