"""Reflections stay honest: each kind of change to a source flags the reflections derived from
it ("evidence changed"), with the strength recomputed from the sources that still stand;
undoing the change ends the flag; the graph-health finding lists the same reflections."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from memory_core.causal import graph_health
from memory_core.consolidation.evidence import EvidenceChange, evidence_changes
from memory_core.consolidation.strength import strength
from memory_core.curation import archive, consolidate, correct, delete, edit, supersede, undo
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM


def _axis(*weights: float) -> list[float]:
    return [*weights, *([0.0] * (FAKE_DIM - len(weights)))]


@dataclass
class World:
    store: MemoryStore
    sources: list[str]   # a, b, c: c is orthogonal to a and b
    reflection: str
    then: float


@pytest.fixture
def world(store: MemoryStore) -> World:
    a = Memory.new("builds break when the cache is cold", "observation", vector=_axis(1.0))
    b = Memory.new("a cold cache broke the nightly build", "observation", vector=_axis(1.0))
    c = Memory.new("the build server ran out of disk", "observation", vector=_axis(0.0, 1.0))
    other = Memory.new("lunch is at noon", "observation", vector=_axis(0.0, 0.0, 1.0))
    store.add([a, b, c, other])
    report = consolidate(store, [a.id, b.id, c.id], "cold caches and full disks break builds")
    then = store.get(report.created[0]).metadata["strength"]
    return World(store, [a.id, b.id, c.id], report.created[0], then)


def _only(world: World) -> EvidenceChange:
    found = evidence_changes(world.store)
    assert [c.reflection_id for c in found] == [world.reflection]
    return found[0]


def test_a_fresh_reflection_is_not_flagged_and_records_its_strength(world: World) -> None:
    # a = b = e1, c = e2: the centroid is (2/3, 1/3) normalised; cosines 2/sqrt5, 2/sqrt5,
    # 1/sqrt5; mean 5/(3 sqrt5) = sqrt5/3; strength x 3/5
    assert world.then == pytest.approx(math.sqrt(5) / 3 * 3 / 5, abs=1e-6)
    assert evidence_changes(world.store) == []
    assert graph_health(world.store).finding("evidence_changed").ids == ()


def test_an_archived_source_flags_it_and_undo_ends_the_flag(world: World) -> None:
    report = archive(world.store, [world.sources[2]])
    change = _only(world)
    assert change.changes == ((world.sources[2], "archived"),)
    assert change.strength_then == pytest.approx(world.then)
    # a and b still stand: identical vectors, cohesion 1, strength 2/4
    assert change.strength_now == pytest.approx(strength(2, 1.0)) == pytest.approx(0.5)
    finding = graph_health(world.store).finding("evidence_changed")
    assert finding.ids == (world.reflection,)
    assert finding.detail["by_kind"] == {"archived": 1}
    assert finding.detail["reflections"][0]["changes"] == [[world.sources[2], "archived"]]
    undo(world.store, str(report.batch_id))
    assert evidence_changes(world.store) == []


def test_a_superseded_source_flags_it(world: World) -> None:
    supersede(world.store, world.sources[0], content="builds break when the cache is empty")
    change = _only(world)
    assert change.changes == ((world.sources[0], "superseded"),)
    # b (e1) and c (e2) remain: each 45 degrees from their centroid
    assert change.strength_now == pytest.approx(strength(2, math.sqrt(0.5)))


@pytest.mark.parametrize("how", ["rejected", "deprecated", "edit"])
def test_a_corrected_source_flags_it(world: World, how: str) -> None:
    source = world.sources[1]
    if how == "rejected":
        correct(world.store, source, "rejected", note="it was the network, not the cache")
    elif how == "deprecated":
        correct(world.store, source, kind="deprecated")
    else:
        edit(world.store, source, content="the network broke the nightly build")
    change = _only(world)
    assert change.changes == ((source, "corrected"),)
    assert change.strength_now == pytest.approx(strength(2, math.sqrt(0.5)))


def test_an_accepted_verdict_confirms_and_does_not_flag(world: World) -> None:
    correct(world.store, world.sources[1], "accepted")
    assert evidence_changes(world.store) == []


def test_an_undone_correction_does_not_count(world: World) -> None:
    report = correct(world.store, world.sources[1], "rejected")
    undo(world.store, str(report.batch_id))
    assert evidence_changes(world.store) == []


def test_purged_and_deleted_sources_are_named_so(world: World) -> None:
    delete(world.store, [world.sources[0]], purge=True)
    deleted = delete(world.store, [world.sources[2]])
    change = _only(world)
    assert change.changes == ((world.sources[0], "purged"), (world.sources[2], "deleted"))
    assert change.strength_now == pytest.approx(strength(1, 1.0)) == pytest.approx(1 / 3)
    assert change.drop == pytest.approx(world.then - 1 / 3)
    undo(world.store, str(deleted.batch_id))
    assert _only(world).changes == ((world.sources[0], "purged"),)


def test_every_source_gone_leaves_strength_zero(world: World) -> None:
    archive(world.store, world.sources)
    assert _only(world).strength_now == 0.0


def test_sources_archived_by_the_consolidation_itself_are_expected(store: MemoryStore) -> None:
    a = Memory.new("tests flake on fridays", "observation", vector=_axis(1.0))
    b = Memory.new("friday test runs flake", "observation", vector=_axis(1.0))
    store.add([a, b])
    consolidate(store, [a.id, b.id], "friday tests flake", archive_sources=True)
    assert evidence_changes(store) == []
    supersede(store, a.id, content="tests flake on fridays and mondays")
    (change,) = evidence_changes(store)
    assert change.changes == ((a.id, "superseded"),)


def test_an_imported_reflection_uses_its_edges_and_the_purge_tombstone(
        store: MemoryStore) -> None:
    """No `sources` metadata: its derived_from targets now, and the one a purge took."""
    a, b, c = (Memory.new(f"imported observation {x}", "observation", vector=_axis(1.0))
               for x in "abc")
    reflection = Memory.new("an imported reflection", "reflection",
                            metadata={"source_count": 3, "strength": 0.6})
    store.add([a, b, c, reflection])
    store.edges.add([Edge.new(reflection.id, m.id, "derived_from") for m in (a, b, c)])
    assert evidence_changes(store) == []
    delete(store, [b.id], purge=True)
    archive(store, [c.id])
    (change,) = evidence_changes(store)
    assert change.changes == tuple(sorted([(b.id, "purged"), (c.id, "archived")]))
    assert (change.strength_then, change.strength_now) == (0.6, pytest.approx(1 / 3))


def test_the_queue_puts_the_biggest_drop_first_and_ids_narrow_it(store: MemoryStore) -> None:
    memories = [Memory.new(f"observation number {i}", "observation", vector=_axis(1.0))
                for i in range(5)]
    store.add(memories)
    ids = [m.id for m in memories]
    small = consolidate(store, ids[:3], "the first three agree").created[0]
    big = consolidate(store, ids[3:], "the last two agree").created[0]
    archive(store, [ids[0], ids[3]])
    found = evidence_changes(store)
    # small: 3/5 -> 2/4 (drop 0.1); big: 2/4 -> 1/3 (drop 1/6)
    assert [c.reflection_id for c in found] == [big, small]
    assert [c.drop for c in found] == [pytest.approx(0.5 - 1 / 3), pytest.approx(0.1)]
    assert [c.reflection_id for c in evidence_changes(store, [small])] == [small]
    assert evidence_changes(store, []) == []
