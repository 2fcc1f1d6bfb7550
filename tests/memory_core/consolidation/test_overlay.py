"""The Map's consolidation overlay: reflections and their sources are consolidated, members of a
current candidate are candidates, the rest neither; another tenant's reflection changes nothing
here."""

from __future__ import annotations

from dataclasses import dataclass

from memory_core.consolidation.overlay import (
    consolidated_ids,
    consolidation_overlay,
    overlay_counts,
)
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder


@dataclass(frozen=True)
class Group:
    """What the overlay reads of a candidate: its members."""

    members: tuple[str, ...]


def _store(store: MemoryStore) -> MemoryStore:
    """r1 (an active reflection) derived from o1 and o2; r2 (archived) derived from o3; o4 and
    o5 loose; a `supports` edge from r1 to o4 (not a source)."""
    store.add([
        Memory.new("Sessions moved off Redis", "reflection", id="r1"),
        Memory.new("Old summary of cache keys", "reflection", id="r2", status="archived"),
        Memory.new("Redis evicted keys under load", "observation", id="o1"),
        Memory.new("Redis memory hit its limit", "observation", id="o2"),
        Memory.new("Postgres sessions table grew", "observation", id="o3"),
        Memory.new("The TTL was 15 minutes", "observation", id="o4"),
        Memory.new("Deploys happen on Tuesdays", "event", id="o5"),
    ])
    store.edges.add([Edge.new("r1", "o1", "derived_from"), Edge.new("r1", "o2", "derived_from"),
                     Edge.new("r2", "o3", "derived_from"), Edge.new("r1", "o4", "supports")],
                    check_endpoints=False)
    return store


def test_sources_of_active_reflections_and_reflections_are_consolidated(
        store: MemoryStore) -> None:
    _store(store)
    # o3's only reflection is archived: it is back to be reviewed
    assert consolidated_ids(store) == {"r1", "r2", "o1", "o2"}
    overlay = consolidation_overlay(store, candidates=[Group(("o3", "o4")), Group(("o1",))])
    assert overlay == {"o1": "consolidated", "o2": "consolidated", "o3": "candidate",
                       "o4": "candidate", "o5": "neither", "r1": "consolidated"}
    assert overlay_counts(overlay) == {"consolidated": 3, "candidate": 2, "neither": 1}


def test_ids_asked_for_and_unknown_ids(store: MemoryStore) -> None:
    _store(store)
    overlay = consolidation_overlay(store, ["r2", "o5", "nope"], candidates=[Group(("o5",))])
    assert overlay == {"r2": "consolidated", "o5": "candidate", "nope": "neither"}


def test_another_tenants_reflection_consolidates_nothing_here(
        store: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    _store(store)
    other = MemoryStore.open(store.uri, embedder=fake_embedder, tenant="other")
    other.add([Memory.new("Their reflection", "reflection", id="x1"),
               Memory.new("Their observation", "observation", id="x2")])
    other.edges.add([Edge.new("x1", "o5", "derived_from")], check_endpoints=False)
    assert "o5" not in consolidated_ids(store)
    assert "x1" in consolidated_ids(other)
    assert consolidation_overlay(store, ["o5"], candidates=[]) == {"o5": "neither"}
