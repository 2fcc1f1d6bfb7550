"""The BM25 tokenisation is recorded in the store and every rebuild reads it back."""

from __future__ import annotations

import pytest

from memory_core.model.errors import InvalidConfigError
from memory_core.model.records import Memory
from memory_core.retrieval.config import preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from memory_core.store.tokenisation import (
    DEFAULT_FTS,
    check_fts_settings,
    recorded_fts,
)


def _found(store: MemoryStore, query: str) -> list[str]:
    return [h.memory.content for h in search(store, query, config=preset("bm25"), limit=5)]


def test_the_first_index_records_the_default_tokenisation(store: MemoryStore) -> None:
    store.add([Memory.new("The café deploys nightly", "fact")])
    assert recorded_fts(store.tables.memories) is None
    # stemming (deploying -> deploy) and ASCII folding (cafe -> café) at work
    assert _found(store, "deploying at the cafe") == ["The café deploys nightly"]
    assert recorded_fts(store.tables.memories) == DEFAULT_FTS


def test_a_rebuild_keeps_the_recorded_settings(store: MemoryStore) -> None:
    store.add([Memory.new("the pipeline deploys nightly", "fact"),
               Memory.new("a memory to purge", "fact")])
    with store.writing("test"):
        store.fts.build({"stem": False})
    assert _found(store, "deploying") == []  # no stemming now
    assert _found(store, "deploys") == ["the pipeline deploys nightly"]
    # a purge rebuilds the index from scratch: it must tokenise as before
    from memory_core.curation import delete

    gone = next(m.id for m in store.list() if m.content.startswith("a memory"))
    delete(store, [gone], purge=True, reason="test")
    assert recorded_fts(store.tables.memories) == {**DEFAULT_FTS, "stem": False}
    assert _found(store, "deploying") == []
    reopened = MemoryStore.open(store.uri, embedder=store.embedder)
    assert recorded_fts(reopened.tables.memories) == {**DEFAULT_FTS, "stem": False}


def test_bad_settings_are_named() -> None:
    with pytest.raises(InvalidConfigError, match="unknown full-text setting.*stemmer"):
        check_fts_settings({"stemmer": True})
    with pytest.raises(InvalidConfigError, match="stem must be a bool"):
        check_fts_settings({"stem": "yes"})


def test_a_build_that_fails_half_way_leaves_no_index_without_its_settings(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build is one write step (issue 42, item 8): an index whose settings could not be
    recorded is rolled back, so no later rebuild tokenises it differently."""
    from memory_core.store import tokenisation

    store.add([Memory.new("the pipeline deploys nightly", "fact")])

    def broken(table: object, settings: object) -> None:
        raise OSError("disk gone while recording the settings")

    monkeypatch.setattr(tokenisation, "record_fts", broken)
    with pytest.raises(OSError, match="disk gone"):
        store.fts.build({"stem": False})
    store.tables.memories.checkout_latest()
    assert not store.fts.exists() and recorded_fts(store.tables.memories) is None
