"""`consolidation_candidates` on hand-built clusters: the planted groups and nothing else,
the graph tying a pair the vectors alone would not, reflections' sources left out, and each
candidate's fields as the contract says (strength by the formula, cohesion, times, agents)."""

from __future__ import annotations

import numpy as np
import pytest

from memory_core.consolidation import (
    Candidate,
    GroupingParams,
    candidate_id,
    consolidation_candidates,
    get_candidate,
    strength,
)
from memory_core.consolidation.cohesion import cohesion
from memory_core.model.errors import CandidateNotFoundError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.memory_core.consolidation.clusters import build


@pytest.fixture
def clusters(store: MemoryStore) -> dict[str, list[str]]:
    return build(store)


def groups(found: list[Candidate]) -> set[frozenset[str]]:
    return {frozenset(c.members) for c in found}


def test_the_planted_clusters_are_the_candidates(store: MemoryStore,
                                                 clusters: dict[str, list[str]]) -> None:
    found = consolidation_candidates(store)
    # the three clusters, and the pair only an edge ties; no loner, never the decision
    assert groups(found) == {frozenset(ids) for ids in clusters.values()} | {
        frozenset({"e0", "e1"})}


def test_without_the_graph_the_edge_tied_pair_is_no_candidate(
        store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    found = consolidation_candidates(store, params=GroupingParams(graph_weight=0.0))
    assert groups(found) == {frozenset(ids) for ids in clusters.values()}


def test_fields_follow_the_contract(store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    found = {frozenset(c.members): c for c in consolidation_candidates(store)}
    a = found[frozenset(clusters["a"])]
    members = store.get_many(list(a.members), with_vectors=True)
    expected = cohesion([members[m].vector or () for m in a.members])
    assert expected is not None
    assert a.cohesion == pytest.approx(expected)
    assert a.strength == pytest.approx(max(0.0, min(1.0, expected)) * 4 / (4 + 2))
    assert a.strength == pytest.approx(strength(4, a.cohesion))
    assert a.id == candidate_id([(m, members[m].content_hash) for m in a.members])
    assert (a.start, a.end) == (min(m.created_at for m in members.values()),
                                max(m.created_at for m in members.values()))
    assert a.agents == ("agent-0", "agent-1") and a.projects == ("shop",)
    assert "cache" in a.terms
    # most central first: each member's cosine to the centroid, descending
    unit = np.array([members[m].vector for m in a.members])
    centre = unit.mean(axis=0)
    central = unit @ (centre / np.linalg.norm(centre))
    assert list(central) == sorted(central, reverse=True)


def test_strongest_first_and_limit(store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    found = consolidation_candidates(store)
    assert [c.strength for c in found] == sorted((c.strength for c in found), reverse=True)
    assert consolidation_candidates(store, limit=2) == found[:2]


def test_a_filter_keeps_candidates_with_a_member_it_selects(
        store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    found = consolidation_candidates(store, Filter(ids=["b1", "x"]))
    assert groups(found) == {frozenset(clusters["b"])}
    # the id is the same as unfiltered: the grouping does not depend on the filter
    assert found[0].id in {c.id for c in consolidation_candidates(store)}


def test_an_active_reflections_sources_are_no_candidates(
        store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    store.add([Memory.new("Warm caches before traffic.", "reflection", id="r", project="shop")])
    store.edges.add([Edge.new("r", m, "derived_from") for m in clusters["a"]])
    found = groups(consolidation_candidates(store))
    assert not any(set(g) & set(clusters["a"]) for g in found)
    assert frozenset(clusters["b"]) in found


def test_an_archived_reflection_frees_its_sources(
        store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    from memory_core.curation import archive

    store.add([Memory.new("Warm caches before traffic.", "reflection", id="r", project="shop")])
    store.edges.add([Edge.new("r", m, "derived_from") for m in clusters["a"]])
    archive(store, ["r"])
    assert frozenset(clusters["a"]) in groups(consolidation_candidates(store))


def test_get_candidate_finds_one_by_id_and_refuses_an_unknown_one(
        store: MemoryStore, clusters: dict[str, list[str]]) -> None:
    first = consolidation_candidates(store)[0]
    assert get_candidate(store, first.id) == first
    with pytest.raises(CandidateNotFoundError, match="memlens consolidate suggest"):
        get_candidate(store, "0123456789abcdef")


def test_an_empty_store_has_no_candidates(store: MemoryStore) -> None:
    assert consolidation_candidates(store) == []


def test_a_bad_limit_is_refused(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="limit"):
        consolidation_candidates(store, limit=0)


def test_progress_rises_to_one_through_the_stages(store: MemoryStore,
                                                  clusters: dict[str, list[str]]) -> None:
    seen: list[tuple[str, float]] = []
    consolidation_candidates(store, progress=lambda stage, f: seen.append((stage, f)))
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert [s for s, _ in seen][0] == "reading memories" and seen[-1][0] == "done"
