"""Rejections: remembered in the store (a fresh handle still leaves the candidate out),
listed with include_rejected, and ended by any change to a member: an edit of its content or
tags, an archive and restore, a member leaving the group."""

from __future__ import annotations

import pytest

from memory_core.consolidation import Candidate, consolidation_candidates, reject
from memory_core.curation import archive, edit, restore
from memory_core.model.errors import CandidateNotFoundError, ReadOnlyError
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.consolidation.clusters import build


@pytest.fixture
def cluster_b(store: MemoryStore) -> Candidate:
    ids = build(store)["b"]
    return next(c for c in consolidation_candidates(store) if set(c.members) == set(ids))


def _listed(store: MemoryStore, candidate: Candidate) -> bool:
    return candidate.id in {c.id for c in consolidation_candidates(store)}


def _involved(store: MemoryStore, member: str) -> bool:
    return any(member in c.members for c in consolidation_candidates(store))


def test_a_rejection_persists_in_the_store(store: MemoryStore, cluster_b: Candidate) -> None:
    reject(store, cluster_b.id, reason="not one episode")
    again = MemoryStore.open(store.uri, embedder=FakeEmbedder(), tenant="default")
    assert not _listed(again, cluster_b)
    kept = {c.id: c for c in consolidation_candidates(again, include_rejected=True)}
    assert kept[cluster_b.id] == cluster_b
    entry = again.audit.query(action="consolidate-reject")[0]
    assert entry.reason == "not one episode" and set(entry.target_ids) == set(cluster_b.members)
    assert entry.after["candidate_id"] == cluster_b.id


def test_the_other_candidates_stay_listed(store: MemoryStore, cluster_b: Candidate) -> None:
    before = {c.id for c in consolidation_candidates(store)}
    reject(store, cluster_b.id)
    assert {c.id for c in consolidation_candidates(store)} == before - {cluster_b.id}


def test_a_content_edit_ends_the_rejection(store: MemoryStore, cluster_b: Candidate) -> None:
    reject(store, cluster_b.id)
    edit(store, "b1", content="Export timeouts come from one unindexed query on tenants.")
    assert _involved(store, "b0")  # the group is proposed again (under a new id)
    assert cluster_b.id not in {c.id for c in consolidation_candidates(store,
                                                                      include_rejected=True)}


def test_a_tag_edit_ends_the_rejection_of_the_same_group(store: MemoryStore,
                                                        cluster_b: Candidate) -> None:
    reject(store, cluster_b.id)
    edit(store, "b2", tags=["reviewed"])
    assert _listed(store, cluster_b)  # same members, same hashes: same id, listed again


def test_an_archive_and_restore_ends_the_rejection(store: MemoryStore,
                                                   cluster_b: Candidate) -> None:
    reject(store, cluster_b.id)
    archive(store, ["b3"])
    assert not _involved(store, "b3")
    restore(store, ["b3"])
    assert _listed(store, cluster_b)


def test_a_member_leaving_makes_another_candidate(store: MemoryStore,
                                                  cluster_b: Candidate) -> None:
    reject(store, cluster_b.id)
    archive(store, ["b3"])
    rest = [c for c in consolidation_candidates(store) if set(c.members) == {"b0", "b1", "b2"}]
    assert rest and rest[0].id != cluster_b.id


def test_an_unknown_candidate_cannot_be_rejected(store: MemoryStore, cluster_b: Candidate
                                                 ) -> None:
    with pytest.raises(CandidateNotFoundError):
        reject(store, "ffffffffffffffff")
    assert store.audit.query(action="consolidate-reject") == []


def test_a_read_only_store_refuses_a_rejection(store: MemoryStore, cluster_b: Candidate
                                               ) -> None:
    reader = MemoryStore.open(store.uri, embedder=FakeEmbedder(), tenant="default",
                              read_only=True)
    with pytest.raises(ReadOnlyError):
        reject(reader, cluster_b.id)
