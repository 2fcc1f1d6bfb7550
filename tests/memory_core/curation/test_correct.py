"""`correct`: ADR-005's confidence and stability rules, worked out by hand, written
as one audited, evented, undoable batch; the constitutional exemption; clear errors."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memory_core.curation import correct, undo, undone_batches
from memory_core.model.errors import CurationError, MemoryNotFoundError, ReadOnlyError
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

approx = pytest.approx


def _f32(value: float) -> object:
    """A float32 column's value compared with a hand-computed one."""
    return approx(value, rel=1e-6)


@pytest.fixture
def mems(store: MemoryStore) -> MemoryStore:
    """old (decision, S 120 by default, confidence 0.8), new (decision, S 10, confidence
    0.6), bare (observation, no stability, no confidence), law (constitutional)."""
    store.add([
        Memory.new("the deploy flag is called zebra", "decision", id="old", confidence=0.8),
        Memory.new("the deploy flag is called okapi now", "decision", id="new",
                   stability=10.0, confidence=0.6),
        replace(Memory.new("a bare observation", "observation", id="bare"), stability=None),
        Memory.new("never push to main", "principle", id="law", importance="constitutional",
                   confidence=0.9),
    ])
    return store


@pytest.mark.parametrize(("verdict", "start", "expected"), [
    ("accepted", 0.8, 0.8 * 1.05),
    ("modified", 0.8, 0.8 * 0.95),
    ("rejected", 0.8, 0.8 * 0.80),
    ("accepted", 0.99, 1.0),  # 0.99 * 1.05 = 1.0395, capped at 1
    ("rejected", None, 0.5 * 0.80),  # null counts as 0.5
    ("accepted", None, 0.5 * 1.05),
])
def test_a_verdict_multiplies_confidence(store: MemoryStore, verdict: str,
                                         start: float | None, expected: float) -> None:
    store.add([Memory.new("a memory", "decision", id="m", confidence=start)])
    report = correct(store, "m", verdict)
    memory = store.get("m")
    assert memory.confidence == _f32(expected)
    assert memory.stability == 120.0  # a verdict alone leaves stability alone
    assert report.action == "correct" and report.batch_id


def test_corrections_compound(mems: MemoryStore) -> None:
    correct(mems, "old", "rejected")
    correct(mems, "old", "rejected", kind="refined", replacement="new")
    assert mems.get("old").confidence == _f32(0.8 * 0.80 * 0.80)
    assert mems.get("old").stability == 120.0 * 0.5


def test_superseded_halves_stability_boosts_and_links_the_replacement(
        mems: MemoryStore) -> None:
    report = correct(mems, "old", kind="superseded", replacement="new", note="renamed")
    old, new = mems.get("old"), mems.get("new")
    assert old.stability == 120.0 * 0.5 and old.confidence == _f32(0.8)
    assert new.confidence == _f32(0.6 * 1.05)
    assert new.stability == 120.0  # raised from 10 to the corrected one's S before penalty
    assert old.status == new.status == "active"  # a correction never changes status
    edges = [e for e in mems.edges.list() if e.relation == "supersedes"]
    assert [(e.source_id, e.target_id) for e in edges] == [("new", "old")]
    assert edges[0].evidence == ("renamed",) and edges[0].metadata["made_by"] == "correct"
    assert [e.change for e in report.edges] == ["added"]


@pytest.mark.parametrize(("kind", "relation"), [("refined", "derived_from"),
                                                ("merged", "supersedes")])
def test_refined_and_merged_draw_their_edge(mems: MemoryStore, kind: str,
                                            relation: str) -> None:
    correct(mems, "old", kind=kind, replacement="new")
    assert [(e.source_id, e.relation, e.target_id) for e in mems.edges.list()] == [
        ("new", relation, "old")]


def test_an_existing_edge_is_not_drawn_twice(mems: MemoryStore) -> None:
    mems.edges.add([Edge.new("new", "old", "supersedes")])
    report = correct(mems, "old", kind="superseded", replacement="new")
    assert len(mems.edges.list()) == 1 and report.edges == ()
    assert any("there already" in n for n in report.notes)


def test_a_replacement_already_more_stable_keeps_its_stability(mems: MemoryStore) -> None:
    mems.add([Memory.new("a durable successor", "principle", id="p", confidence=None)])
    correct(mems, "old", kind="refined", replacement="p")
    assert mems.get("p").stability == 365.0  # principle default, above old's 120
    assert mems.get("p").confidence == _f32(0.5 * 1.05)


def test_deprecated_sets_importance_and_halves_a_null_stability_from_its_default(
        mems: MemoryStore) -> None:
    correct(mems, "bare", kind="deprecated")
    bare = mems.get("bare")
    assert bare.importance == "deprecated"
    assert bare.stability == 30.0 * 0.5  # observation default 30 days (normal), then x0.5
    assert mems.edges.list() == []


def test_verdict_and_kind_together(mems: MemoryStore) -> None:
    correct(mems, "old", "modified", kind="merged", replacement="new")
    old = mems.get("old")
    assert old.confidence == _f32(0.8 * 0.95) and old.stability == 120.0 * 0.5


def test_a_correction_is_one_audited_batch(mems: MemoryStore) -> None:
    report = correct(mems, "old", "rejected", kind="superseded", replacement="new",
                     note="renamed", actor="reviewer-7")
    rows = mems.audit.query(batch_id=report.batch_id, limit=None)
    assert {r.action for r in rows} == {"correct"}
    assert sorted(r.before["kind"] for r in rows) == ["correction", "edge", "memory"]
    assert {r.reason for r in rows} == {"renamed"}
    row = next(r for r in rows if r.before["kind"] == "correction")
    assert set(row.target_ids) == {"old", "new"}
    assert row.after["verdict"] == "rejected" and row.after["correction_kind"] == "superseded"
    assert row.after["note"] == "renamed" and row.after["replacement"] == "new"
    assert row.after["judged_by"] == "reviewer-7"
    assert row.before["memories"]["old"]["confidence"] == _f32(0.8)
    assert row.after["memories"]["old"]["confidence"] == _f32(0.8 * 0.80)
    assert row.before["memories"]["old"]["stability"] == 120.0
    assert row.after["memories"]["old"]["stability"] == 60.0
    assert row.after["memories"]["new"]["stability"] == 120.0


def test_a_correction_writes_a_correct_event(mems: MemoryStore) -> None:
    report = correct(mems, "old", "rejected", kind="superseded", replacement="new",
                     note="renamed", actor="reviewer-7", session_id="s-1")
    [event] = mems.events.query(kinds=["correct"])
    assert (event.memory_id, event.actor, event.session_id) == ("old", "reviewer-7", "s-1")
    meta = event.metadata
    assert (meta["verdict"], meta["kind"], meta["note"], meta["replacement"]) == (
        "rejected", "superseded", "renamed", "new")
    assert meta["confidence_before"] == _f32(0.8)
    assert meta["confidence_after"] == _f32(0.64)
    assert (meta["stability_before"], meta["stability_after"]) == (120.0, 60.0)
    assert meta["batch_id"] == report.batch_id and "waived" not in meta


def test_undo_reverts_the_records_and_keeps_the_event(mems: MemoryStore) -> None:
    before = mems.get_many(["old", "new"], with_vectors=True)
    report = correct(mems, "old", "rejected", kind="superseded", replacement="new")
    assert report.batch_id
    undone = undo(mems, report.batch_id)
    assert mems.get_many(["old", "new"], with_vectors=True) == before
    assert mems.edges.list() == []
    assert len(mems.events.query(kinds=["correct"])) == 1  # append-only: the audit shows the undo
    assert undone_batches(mems) == {report.batch_id: undone.batch_id}
    redo = undo(mems, str(undone.batch_id))  # undoing the undo puts the correction back
    assert mems.get("old").confidence == _f32(0.64)
    assert undone_batches(mems) == {str(undone.batch_id): redo.batch_id}


def test_a_dry_run_writes_nothing(mems: MemoryStore) -> None:
    versions = mems.table_versions()
    preview = correct(mems, "old", "rejected", kind="superseded", replacement="new",
                      dry_run=True)
    assert mems.table_versions() == versions and preview.dry_run and preview.batch_id is None
    assert {(c.memory_id, c.field) for c in preview.changes} == {
        ("old", "confidence"), ("old", "stability"), ("new", "confidence"),
        ("new", "stability")}
    assert mems.events.query() == []


def test_constitutional_memories_are_exempt_from_penalties(mems: MemoryStore) -> None:
    before = mems.get("law")
    report = correct(mems, "law", "rejected", kind="superseded", replacement="new")
    law = mems.get("law")
    assert (law.confidence, law.stability, law.importance) == (
        before.confidence, before.stability, "constitutional")
    assert any("penalties are waived (verdict rejected, stability penalty)" in n
               for n in report.notes)
    new = mems.get("new")  # boosted, but its S is not raised to the constitutional "never"
    assert new.confidence == _f32(0.6 * 1.05) and new.stability == 10.0
    [event] = mems.events.query(kinds=["correct"])
    assert event.metadata["waived"] == ["verdict rejected", "stability penalty"]
    assert any(r.before.get("kind") == "correction"
               for r in mems.audit.query(batch_id=report.batch_id, limit=None))


def test_accepted_still_applies_to_a_constitutional_memory(mems: MemoryStore) -> None:
    correct(mems, "law", "accepted")
    assert mems.get("law").confidence == _f32(0.9 * 1.05)


def test_a_constitutional_memory_cannot_be_deprecated(mems: MemoryStore) -> None:
    versions = mems.table_versions()
    with pytest.raises(CurationError, match=r"constitutional.*memlens edit law --importance"):
        correct(mems, "law", kind="deprecated")
    assert mems.table_versions() == versions


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((), {}, "needs a verdict .* or a kind"),
    (("wrong",), {}, "unknown correction verdict 'wrong'; use one of: accepted, modified"),
    ((), {"kind": "obsolete"}, "unknown correction kind 'obsolete'; use one of: superseded"),
    ((), {"kind": "superseded"}, "needs the id of the memory that replaces 'old'"),
    ((), {"kind": "refined"}, "--by NEW_ID"),
    ((), {"kind": "deprecated", "replacement": "new"}, "leave the replacement out"),
    (("rejected",), {"replacement": "new"}, "leave the replacement out"),
    ((), {"kind": "merged", "replacement": "old"}, "cannot replace itself"),
])
def test_mistakes_are_clear_errors(mems: MemoryStore, args: tuple[str, ...],
                                   kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(CurationError, match=message):
        correct(mems, "old", *args, **kwargs)
    assert mems.events.query() == []


@pytest.mark.parametrize(("memory_id", "replacement"), [("nope", None), ("old", "nope"),
                                                         ("elsewhere", None)])
def test_unknown_ids_are_refused(mems: MemoryStore, store_path: str,
                                 fake_embedder: FakeEmbedder, memory_id: str,
                                 replacement: str | None) -> None:
    MemoryStore.open(store_path, tenant="acme", embedder=fake_embedder).add(
        [Memory.new("another tenant's memory", id="elsewhere")])
    kind = "superseded" if replacement else None
    with pytest.raises(MemoryNotFoundError, match="no memory with id 'nope'|'elsewhere'"):
        correct(mems, memory_id, "rejected" if not kind else None, kind=kind,
                replacement=replacement)


def test_an_inactive_replacement_is_refused(mems: MemoryStore) -> None:
    mems.add([Memory.new("an archived successor", id="gone", status="archived")])
    with pytest.raises(CurationError, match="replacement 'gone' is archived; restore it"):
        correct(mems, "old", kind="superseded", replacement="gone")


def test_a_read_only_store_refuses(mems: MemoryStore, store_path: str,
                                   fake_embedder: FakeEmbedder) -> None:
    ro = MemoryStore.open(store_path, embedder=fake_embedder, read_only=True)
    versions = ro.table_versions()
    with pytest.raises(ReadOnlyError, match="correct is refused"):
        correct(ro, "old", "rejected")
    assert ro.table_versions() == versions
    assert correct(ro, "old", "rejected", dry_run=True).dry_run  # a preview still works
