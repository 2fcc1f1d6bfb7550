"""`consolidate`: a reflection of several memories as one batch (metadata, edges, strength),
refused clearly when it cannot be made, previewed, and undone to the exact state before."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memory_core.curation import audit_batches, consolidate, preview, undo
from memory_core.model.errors import (
    CurationConflictError,
    CurationError,
    EmbedderUnavailableError,
    MemoryNotFoundError,
)
from memory_core.model.records import Memory
from memory_core.model.values import content_hash
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder
from tests.memory_core.curation.conftest import Corpus
from tests.memory_core.curation.helpers import export_body


def _axis(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(FAKE_DIM)]


def test_a_reflection_records_its_sources_method_and_strength(store: MemoryStore) -> None:
    a = Memory.new("the deploy failed on monday", "observation", project="alpha",
                   vector=_axis(0))
    b = Memory.new("the deploy failed on tuesday", "observation", project="alpha",
                   vector=_axis(1))
    store.add([a, b])
    report = consolidate(store, [a.id, b.id], "deploys fail early in the week",
                         method="llm_synthesis", model="claude-code/2.1", reason="weekly")
    assert report.action == "consolidate" and not report.dry_run
    (new_id,) = report.created
    reflection = store.get(new_id, with_vectors=True)
    assert reflection.memory_type == "reflection" and reflection.status == "active"
    assert reflection.embedding_status == "ok" and reflection.vector is not None
    assert reflection.project == "alpha" and reflection.why == "weekly"
    meta = reflection.metadata
    assert meta["method"] == "llm_synthesis" and meta["model"] == "claude-code/2.1"
    assert meta["source_count"] == 2
    assert meta["sources"] == [{"id": a.id, "content_hash": content_hash(a.content)},
                               {"id": b.id, "content_hash": content_hash(b.content)}]
    # two orthogonal unit vectors: each is 45 degrees from the centroid, and
    # strength = cohesion x n / (n + 2) = cos(45) x 2 / 4
    assert meta["cohesion"] == pytest.approx(math.sqrt(0.5), abs=1e-6)
    assert meta["strength"] == pytest.approx(math.sqrt(0.5) * 2 / 4, abs=1e-6)
    edges = [e for e in store.edges.list(memory_id=new_id) if e.relation == "derived_from"]
    assert sorted((e.source_id, e.target_id) for e in edges) == sorted(
        [(new_id, a.id), (new_id, b.id)])
    assert {store.get(i).status for i in (a.id, b.id)} == {"active"}
    (batch,) = [x for x in audit_batches(store) if x.batch_id == report.batch_id]
    assert batch.action == "consolidate" and batch.undoable and batch.reason == "weekly"


@pytest.mark.parametrize("archive_sources", [False, True])
def test_consolidate_then_undo_gives_the_export_before(corpus: Corpus, tmp_path: Path,
                                                       archive_sources: bool) -> None:
    store = corpus.store
    before = export_body(store, tmp_path, "before")
    report = consolidate(store, corpus.ids[:3], "the deploys use zebra flags",
                         archive_sources=archive_sources)
    statuses = {store.get(i).status for i in corpus.ids[:3]}
    assert statuses == ({"archived"} if archive_sources else {"active"})
    assert export_body(store, tmp_path, "during") != before
    undo(store, str(report.batch_id))
    assert export_body(store, tmp_path, "after") == before


def test_a_preview_writes_nothing_and_its_confirmation_creates_what_it_showed(
        corpus: Corpus) -> None:
    store = corpus.store
    versions = store.table_versions()
    shown = preview(store, "consolidate", corpus.ids[:2], "zebra flags everywhere")
    assert shown.dry_run and len(shown.created) == 1
    assert sum(e.change == "added" for e in shown.edges) == 2
    assert store.table_versions() == versions
    done = consolidate(store, corpus.ids[:2], "zebra flags everywhere", expect=shown)
    assert done.created == shown.created


def test_a_source_changed_since_the_preview_is_a_conflict(corpus: Corpus) -> None:
    from memory_core.curation import edit

    store = corpus.store
    shown = consolidate(store, corpus.ids[:2], "zebra flags everywhere", dry_run=True)
    edit(store, corpus.ids[1], why="changed meanwhile")
    versions = store.table_versions()
    with pytest.raises(CurationConflictError, match="changed since the preview"):
        consolidate(store, corpus.ids[:2], "zebra flags everywhere", expect=shown)
    assert store.table_versions() == versions


def test_an_unavailable_embedder_leaves_the_reflection_pending(
        corpus: Corpus, fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(texts: object) -> object:
        raise EmbedderUnavailableError("the model is not here")

    monkeypatch.setattr(fake_embedder, "embed", unavailable)
    report = consolidate(corpus.store, corpus.ids[:2], "zebra flags, pending")
    reflection = corpus.store.get(report.created[0])
    assert reflection.embedding_status == "pending"
    assert any("pending until `memlens reembed`" in n for n in report.notes)


@pytest.mark.parametrize(("members", "content", "kwargs", "error", "match"), [
    ([0], "one source", {}, CurationError, "at least 2 memories; 1 was given"),
    ([0, 0], "the same source twice", {}, CurationError, "at least 2"),
    ([0, 1], "   ", {}, CurationError, "content is empty"),
    ([0, 1], "fine", {"method": "dreamed"}, CurationError,
     "unknown consolidation method 'dreamed'; use one of: manual, rule_based, llm_synthesis"),
    ([0, 1], "fine", {"model": " "}, CurationError, "model name is empty"),
    ([0, 1], "fine", {"status": "archived"}, CurationError, "cannot be given 'status'"),
    ([0, "nope"], "fine", {}, MemoryNotFoundError, "no memory with id 'nope'"),
])
def test_what_makes_no_reflection_is_refused_and_changes_nothing(
        corpus: Corpus, members: list, content: str, kwargs: dict, error: type,
        match: str) -> None:
    store = corpus.store
    ids = [corpus.ids[m] if isinstance(m, int) else m for m in members]
    versions = store.table_versions()
    with pytest.raises(error, match=match):
        consolidate(store, ids, content, **kwargs)
    assert store.table_versions() == versions


def test_inactive_sources_duplicates_and_other_tenants_are_refused(
        corpus: Corpus, store_path: str, fake_embedder: FakeEmbedder) -> None:
    from memory_core.curation import archive

    store, ids = corpus.store, corpus.ids
    archive(store, [ids[2]])
    other = MemoryStore.open(store_path, embedder=fake_embedder, tenant="other")
    theirs = other.add([Memory.new("the other tenant's note", "observation")]).inserted[0]
    versions = store.table_versions()
    with pytest.raises(CurationError, match=f"memory '{ids[2]}' is archived; a reflection "
                                            f"consolidates active memories"):
        consolidate(store, [ids[0], ids[2]], "fine")
    held = store.get(ids[5]).content
    with pytest.raises(CurationError, match=f"memory '{ids[5]}' already holds this content"):
        consolidate(store, [ids[0], ids[1]], held)
    with pytest.raises(MemoryNotFoundError, match="in tenant 'default'"):
        consolidate(store, [ids[0], theirs], "fine")
    assert store.table_versions() == versions
