"""The purge that follows lineage: the closure over `derived_from` on a hand-built DAG with a
diamond and a cycle, the ticked subset purged in one batch and the unticked kept, and tenant
scope."""

from __future__ import annotations

import pytest

from memory_core.curation import delete, undo
from memory_core.curation.lineage import Derived, derived_closure
from memory_core.model.errors import CurationError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

#: X derived_from Y, as (X, Y). The diamond: a <- r1 <- top and a <- r2 <- top. The cycle:
#: c1 <-> c2 below top, and a itself derived from c2 (back to the deleted memory). z is a's
#: source, not derived from it; u caused a (another relation).
DERIVED = [("r1", "a"), ("r2", "a"), ("top", "r1"), ("top", "r2"), ("c1", "top"),
           ("c2", "c1"), ("c1", "c2"), ("a", "c2"), ("a", "z")]
WORDS = {"a": "observation alpha deploy", "r1": "reflection rone", "r2": "reflection rtwo",
         "top": "insight apex", "c1": "summary cyclone", "c2": "summary cycltwo",
         "z": "source zulu", "u": "cause umbra"}


def _dag(store: MemoryStore) -> None:
    store.add([Memory.new(f"{text} memory {i}", "observation" if i == "a" else "reflection",
                          id=i) for i, text in WORDS.items()])
    store.edges.add([Edge.new(x, y, "derived_from") for x, y in DERIVED]
                    + [Edge.new("u", "a", "caused")])


@pytest.fixture
def dag(store: MemoryStore) -> MemoryStore:
    _dag(store)
    return store


def test_the_closure_follows_derived_from_through_a_diamond_and_a_cycle(
        dag: MemoryStore) -> None:
    closure = derived_closure(dag, ["a"])
    # nearest first, each once (top by its shortest path, through r1: r1 < r2), the cycle
    # walked once, a itself never listed, z (a's source) and u (caused) not derived
    assert closure == [Derived("r1", ("a", "r1")), Derived("r2", ("a", "r2")),
                       Derived("top", ("a", "r1", "top")),
                       Derived("c1", ("a", "r1", "top", "c1")),
                       Derived("c2", ("a", "r1", "top", "c1", "c2"))]
    assert closure[2].depth == 2 and closure[2].root == "a"
    assert derived_closure(dag, ["a"]) == closure  # the same store, the same paths


def test_the_closure_of_several_starts_and_of_a_leaf(dag: MemoryStore) -> None:
    # from z: a is derived from z, and everything derived from a after it
    assert [d.id for d in derived_closure(dag, ["z"])] == ["a", "r1", "r2", "top", "c1", "c2"]
    # r2 and top given together: top is given, so not listed; around the cycle, a is
    # derived from c2 and r1 from a, while r2 (given) is not listed again
    assert derived_closure(dag, ["r2", "top"]) == [
        Derived("c1", ("top", "c1")), Derived("c2", ("top", "c1", "c2")),
        Derived("a", ("top", "c1", "c2", "a")), Derived("r1", ("top", "c1", "c2", "a", "r1"))]
    assert derived_closure(dag, ["u"]) == []
    assert derived_closure(dag, ["no-such-id"]) == []


def _active(store: MemoryStore) -> set[str]:
    return store.ids(Filter(status=("active",)))


def test_a_purge_with_the_ticked_derived_keeps_the_unticked(dag: MemoryStore) -> None:
    preview = delete(dag, ["a"], purge=True, with_derived=["r1", "top"], dry_run=True)
    assert set(preview.deleted) == {"a", "r1", "top"}
    report = delete(dag, ["a"], purge=True, with_derived=["r1", "top"], expect=preview)
    assert report.purged and set(report.deleted) == {"a", "r1", "top"}
    assert "derived memories taken along: 2" in report.notes
    # one batch: its audit rows name all three; like any purge it cannot be undone
    rows = dag.audit.query(batch_id=report.batch_id, limit=None)
    assert {i for r in rows for i in r.target_ids} >= {"a", "r1", "top"}
    assert report.verification is not None and report.verification.passed
    assert set(report.verification.memory_ids) == {"a", "r1", "top"}
    with pytest.raises(CurationError):
        undo(dag, report.batch_id or "")
    # the unticked stay active, and search still finds them by their own words
    assert _active(dag) == {"r2", "c1", "c2", "z", "u"}
    hits = search(dag, "summary cyclone", limit=3).hits
    assert hits and hits[0].memory.id == "c1"
    assert search(dag, "reflection rtwo", limit=1).hits[0].memory.id == "r2"


def test_with_derived_true_takes_the_whole_closure_in_one_undoable_delete(
        dag: MemoryStore) -> None:
    before = _active(dag)
    report = delete(dag, ["a"], with_derived=True)
    assert set(report.deleted) == {"a", "r1", "r2", "top", "c1", "c2"}
    assert _active(dag) == {"z", "u"}
    undo(dag, report.batch_id or "")  # one batch: one undo brings all of them back
    assert _active(dag) == before


def test_a_ticked_id_outside_the_closure_is_refused(dag: MemoryStore) -> None:
    with pytest.raises(CurationError, match="'z' is not derived from the selection"):
        delete(dag, ["a"], purge=True, with_derived=["r1", "z"])
    assert _active(dag) == set(WORDS)  # nothing was changed


def test_other_tenants_derived_memories_are_never_in_the_closure(
        dag: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    other = MemoryStore.open(dag.uri, embedder=fake_embedder, tenant="other")
    other.add([Memory.new("another tenant's reflection on alpha", "reflection", id="theirs")])
    # an edge of the other tenant naming our memory (written around the endpoint check)
    other.edges.add([Edge.new("theirs", "a", "derived_from")], check_endpoints=False)
    assert "theirs" not in {d.id for d in derived_closure(dag, ["a"])}
    report = delete(dag, ["a"], purge=True, with_derived=True)
    assert "theirs" not in report.deleted
    assert other.get("theirs").status == "active"
    with pytest.raises(CurationError):  # and it cannot be ticked in
        delete(dag, ["z"], purge=True, with_derived=["theirs"])
