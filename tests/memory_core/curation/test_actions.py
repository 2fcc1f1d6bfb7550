"""Each curation action on a small real store: exact before/after, one batch of audit rows,
previews that write nothing, and clear refusals that change nothing."""

from __future__ import annotations

import pytest

from memory_core.curation import (
    archive,
    delete,
    edit,
    merge,
    preview,
    restore,
    supersede,
)
from memory_core.model.errors import (
    CurationConflictError,
    CurationError,
    InvalidRecordError,
    MemoryNotFoundError,
)
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.retrieval.config import preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.curation.conftest import Corpus


def batch_rows(store: MemoryStore, batch_id: str | None) -> list:
    assert batch_id
    return store.audit.query(batch_id=batch_id, limit=None)


def test_archive_takes_memories_out_of_search_and_keeps_them_listed(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    assert ids[1] in [h.memory.id for h in search(store, "zebra1 service", limit=8).hits]
    report = archive(store, [ids[1], ids[2]], reason="stale")
    assert report.count == 2 and not report.dry_run
    assert {(c.memory_id, c.field, c.before, c.after) for c in report.changes} == {
        (ids[1], "status", "active", "archived"), (ids[2], "status", "active", "archived")}
    assert store.get(ids[1]).status == "archived"
    assert ids[1] not in [h.memory.id for h in search(store, "zebra1 service", limit=8).hits]
    assert ids[1] in store.ids(Filter(status=STATUSES))
    rows = batch_rows(store, report.batch_id)
    assert [r.action for r in rows] == ["archive"]
    assert rows[0].reason == "stale" and set(rows[0].target_ids) == {ids[1], ids[2]}
    assert [d["status"] for d in rows[0].after["records"]] == ["archived", "archived"]


def test_archive_by_filter_and_restore(corpus: Corpus) -> None:
    store = corpus.store
    alpha = store.ids(Filter(project="alpha"))
    report = archive(store, Filter(project="alpha"))
    assert set(report.memory_ids) == alpha
    assert store.ids(Filter(project="alpha")) == set()
    back = restore(store, Filter(project="alpha", status="archived"))
    assert set(back.memory_ids) == alpha
    assert store.ids(Filter(project="alpha")) == alpha


def test_preview_writes_nothing_and_matches_the_real_run(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    versions = store.table_versions()
    planned = preview(store, "archive", [ids[0]])
    assert planned.dry_run and planned.batch_id is None
    assert store.table_versions() == versions
    assert store.get(ids[0]).status == "active"
    done = archive(store, [ids[0]], expect=planned)
    assert [(c.field, c.after) for c in done.changes] == [(c.field, c.after)
                                                          for c in planned.changes]


def test_confirming_a_stale_preview_is_refused(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    planned = preview(store, "archive", [ids[0], ids[1]])
    edit(store, ids[1], why="changed behind the preview's back")
    versions = store.table_versions()
    with pytest.raises(CurationConflictError, match="changed since the preview"):
        archive(store, [ids[0], ids[1]], expect=planned)
    assert store.table_versions() == versions
    assert store.get(ids[0]).status == "active"


def test_edit_content_reembeds_and_rehashes(corpus: Corpus, fake_embedder: FakeEmbedder) -> None:
    store, ids = corpus.store, corpus.ids
    before = store.get(ids[5], with_vectors=True)
    report = edit(store, ids[5], content="canary rollout needs two approvals", tags=["ops"])
    after = store.get(ids[5], with_vectors=True)
    assert after.content == "canary rollout needs two approvals"
    assert after.content_hash != before.content_hash and after.tags == ("ops",)
    expected = fake_embedder.embed_batch([after.content])[0]
    assert after.vector == pytest.approx(tuple(float(x) for x in expected), abs=1e-6)
    assert after.created_at == before.created_at and after.updated_at > before.updated_at
    fields = {c.field for c in report.changes}
    assert {"content", "content_hash", "tags"} <= fields and "vector" not in fields
    found = search(store, "canary approvals", config=preset("hybrid"), limit=1)
    assert found.hits[0].memory.id == ids[5]


def test_edit_refuses_a_duplicate_unless_allowed(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    other = store.get(ids[2]).content
    with pytest.raises(CurationError, match=f"memory '{ids[2]}' already holds this content"):
        edit(store, ids[3], content=other)
    assert store.get(ids[3]).content != other
    edit(store, ids[3], content=other, allow_duplicate=True)
    assert store.get(ids[3]).content == other


@pytest.mark.parametrize("fields, error", [
    ({"status": "archived"}, "cannot edit 'status'"),
    ({}, "nothing to edit"),
    ({"confidence": 3.0}, "must lie in 0..1"),
    ({"content": "   "}, "empty content"),
])
def test_bad_edits_change_nothing(corpus: Corpus, fields: dict, error: str) -> None:
    versions = corpus.store.table_versions()
    with pytest.raises((CurationError, InvalidRecordError), match=error):
        edit(corpus.store, corpus.ids[0], **fields)
    assert corpus.store.table_versions() == versions


def test_supersede_with_new_content(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    old = store.get(ids[0])
    report = supersede(store, ids[0], content="deploys now use blue-green, not flags",
                       reason="ADR-7")
    (new_id,) = report.created
    new = store.get(new_id)
    assert store.get(ids[0]).status == "superseded"
    assert (new.memory_type, new.project, new.tags) == (old.memory_type, old.project, old.tags)
    links = [e for e in store.edges.list(memory_id=new_id) if e.relation == "supersedes"]
    assert [(e.source_id, e.target_id, e.evidence) for e in links] == [(new_id, ids[0],
                                                                        ("ADR-7",))]
    with pytest.raises(CurationError, match="already superseded by"):
        supersede(store, ids[0], content="yet another")


def test_supersede_by_an_existing_memory(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    report = supersede(store, ids[6], by=ids[7])
    assert report.created == ()
    assert store.get(ids[6]).status == "superseded" and store.get(ids[7]).status == "active"
    with pytest.raises(CurationError, match="cannot supersede itself"):
        supersede(store, ids[5], by=ids[5])
    with pytest.raises(CurationError, match="either new content or the id"):
        supersede(store, ids[5])


def test_merge_unions_moves_edges_and_sums_counts(store: MemoryStore) -> None:
    from memory_core.model.records import Edge

    a = Memory.new("keep the survivor", "fact", tags=["x"], metadata={"k": 1, "s": "a"},
                   access_count=2)
    b = Memory.new("a near duplicate of it", "fact", tags=["y"], metadata={"k": 9, "b": 1},
                   access_count=3)
    c = Memory.new("another near duplicate", "fact", tags=["x", "z"], access_count=1)
    d = Memory.new("an unrelated cause", "fact")
    store.add([a, b, c, d])
    store.edges.add([Edge.new(d.id, b.id, "caused"), Edge.new(d.id, a.id, "caused"),
                     Edge.new(b.id, c.id, "supports"), Edge.new(c.id, d.id, "enabled")])
    report = merge(store, [a.id, b.id, c.id], a.id)
    kept = store.get(a.id)
    assert kept.tags == ("x", "y", "z")
    assert kept.metadata["k"] == 1 and kept.metadata["b"] == 1 and kept.metadata["s"] == "a"
    assert kept.metadata["merged_from"] == [b.id, c.id]
    assert kept.access_count == 6
    assert {store.get(i).status for i in (b.id, c.id)} == {"superseded"}
    edges = {(e.source_id, e.target_id, e.relation) for e in store.edges.list()}
    assert edges == {(d.id, a.id, "caused"), (a.id, d.id, "enabled"),
                     (a.id, b.id, "supersedes"), (a.id, c.id, "supersedes")}
    kinds = sorted(e.change for e in report.edges)
    # d->b caused is a duplicate once moved, b->c a self loop: both removed
    assert kinds == ["added", "added", "moved", "removed", "removed"]


def test_merge_refusals(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    with pytest.raises(CurationError, match="at least one memory besides"):
        merge(store, [ids[0]], ids[0])
    archive(store, [ids[1]])
    with pytest.raises(CurationError, match="survivor .* is archived"):
        merge(store, [ids[0], ids[1]], ids[1])


def test_delete_removes_rows_and_their_edges(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    report = delete(store, [ids[0]])
    assert report.deleted == (ids[0],)
    assert ids[0] not in store.ids(Filter(status=STATUSES))
    assert store.edges.list(memory_id=ids[0], include_inactive=True) == []
    assert sorted(e.change for e in report.edges) == ["removed", "removed"]
    rows = batch_rows(store, report.batch_id)
    assert {r.before["kind"] for r in rows} == {"memory", "edge"}


@pytest.mark.parametrize("selection, error", [
    (["no-such-id"], MemoryNotFoundError),
    ([], CurationError),
    (Filter(project="nobody"), CurationError),
])
@pytest.mark.parametrize("action", [archive, restore, delete])
def test_bad_or_empty_selections_change_nothing(corpus: Corpus, action, selection,
                                                error: type) -> None:
    versions = corpus.store.table_versions()
    with pytest.raises(error):
        action(corpus.store, selection)
    assert corpus.store.table_versions() == versions


def test_other_tenants_ids_are_not_found(corpus: Corpus, store_path: str,
                                         fake_embedder: FakeEmbedder) -> None:
    other = MemoryStore.open(store_path, embedder=fake_embedder, tenant="other")
    theirs = other.add([Memory.new("the other tenant's secret", "fact")]).inserted[0]
    versions = corpus.store.table_versions()
    for action in (archive, delete):
        with pytest.raises(MemoryNotFoundError, match="in tenant 'default'"):
            action(corpus.store, [theirs])
    with pytest.raises(MemoryNotFoundError):
        merge(corpus.store, [corpus.ids[0], theirs], corpus.ids[0])
    assert corpus.store.table_versions() == versions
    assert other.get(theirs).status == "active"


def test_archiving_what_is_archived_says_so(corpus: Corpus) -> None:
    archive(corpus.store, [corpus.ids[0]])
    with pytest.raises(CurationError, match="nothing to archive: 1 already archived"):
        archive(corpus.store, [corpus.ids[0]])


def test_merge_many_merges_pairs_in_one_batch_and_maps_edges_between_them(
        store: MemoryStore) -> None:
    from memory_core.curation import merge_many, undo
    from memory_core.model.records import Edge

    a1, a2, b1, b2 = (Memory.new(f"pair memory {n}", "fact") for n in ("a1", "a2", "b1", "b2"))
    store.add([a1, a2, b1, b2])
    store.edges.add([Edge.new(a2.id, b2.id, "caused")])
    report = merge_many(store, [([a1.id, a2.id], a1.id), ([b1.id, b2.id], b1.id)])
    assert len(store.audit.query(batch_id=report.batch_id, limit=None)) == 2
    edges = {(e.source_id, e.target_id, e.relation) for e in store.edges.list()}
    assert (a1.id, b1.id, "caused") in edges  # both ends mapped to their survivors
    assert {store.get(i).status for i in (a2.id, b2.id)} == {"superseded"}
    with pytest.raises(CurationError, match="in two merges at once"):
        merge_many(store, [([a1.id, b1.id], a1.id), ([b1.id, b2.id], b2.id)])
    undo(store, report.batch_id)
    assert {store.get(i).status for i in (a2.id, b2.id)} == {"active"}


def test_confirming_a_supersede_preview_creates_the_previewed_memory(corpus: Corpus) -> None:
    store, ids = corpus.store, corpus.ids
    planned = supersede(store, ids[2], content="a successor we previewed", dry_run=True)
    done = supersede(store, ids[2], content="a successor we previewed", expect=planned)
    assert done.created == planned.created
    assert store.get(planned.created[0]).content == "a successor we previewed"
