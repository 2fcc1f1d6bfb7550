"""`store_stats` on a two-tenant store: every count worked out by hand, the same however the
memories are batched, and nothing of the other tenant in it."""

from __future__ import annotations

import pytest

from memory_core.model.records import Edge
from memory_core.stats import dangling_edge_count, store_stats
from memory_core.store import MemoryStore


@pytest.mark.parametrize("batch_rows", [65_536, 2, 1])
def test_counts_are_those_of_the_tenant(two_tenants: MemoryStore, batch_rows: int,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.streams.BATCH_ROWS", batch_rows)
    s = store_stats(two_tenants)
    assert (s.memories, s.active, s.edges) == (8, 5, 4)
    assert s.by_status == {"active": 5, "archived": 2, "superseded": 1}
    # ties by name, a missing value named and placed before names
    assert s.by_type == {"decision": 2, "fact": 2, "observation": 1}
    assert s.by_project == {"atlas": 3, "(none)": 1, "herd": 1}
    assert s.by_agent == {"(none)": 2, "mason": 2, "iris": 1}
    assert s.by_importance == {"normal": 4, "critical": 1}
    assert s.by_embedding_status == {"ok": 7, "pending": 1}
    assert s.pending_embeddings == 1
    # a1, a2, a3 share a text (types differ: a3); r2 copies a4 but is archived; acme's copies
    # of the shared text are another tenant's
    assert (s.duplicate_groups, s.duplicate_memories) == (1, 3)
    assert s.dangling_edges == 2  # to "gone", and to acme's x1


def test_the_other_tenant_sees_its_own(two_tenants: MemoryStore) -> None:
    acme = MemoryStore.open(two_tenants.uri, tenant="acme", embedder=two_tenants.embedder)
    s = store_stats(acme)
    assert (s.memories, s.active, s.edges) == (2, 2, 1)
    assert s.by_project == {"acme-proj": 2}
    assert (s.duplicate_groups, s.duplicate_memories) == (1, 2)
    assert s.dangling_edges == 1


def test_a_digest_collision_never_merges_two_texts(two_tenants: MemoryStore,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    # every content hash gets the same digest: all five active memories look alike, and the
    # exact pass must still find the one group of three
    monkeypatch.setattr("memory_core.stats.duplicates.digests",
                        lambda hashes: np.zeros(len(hashes), dtype=np.uint64))
    monkeypatch.setattr("memory_core.stats.summary.digests",
                        lambda hashes: np.zeros(len(hashes), dtype=np.uint64))
    s = store_stats(two_tenants)
    assert (s.duplicate_groups, s.duplicate_memories) == (1, 3)


def test_dangling_edges_ignore_inactive_edges(two_tenants: MemoryStore) -> None:
    assert dangling_edge_count(two_tenants) == 2
    [gone] = [e for e in two_tenants.edges.list() if e.target_id == "gone"]
    from memory_core.causal import unlink

    unlink(two_tenants, gone.id)
    assert dangling_edge_count(two_tenants) == 1


def test_an_empty_tenant_has_no_counts(store: MemoryStore) -> None:
    s = store_stats(store)
    assert (s.memories, s.active, s.edges, s.dangling_edges) == (0, 0, 0, 0)
    assert s.by_type == s.by_status == {} and s.duplicate_groups == 0
    assert s.index_health is not None and not s.index_health.outgrown


def test_json_view_holds_the_index_health(two_tenants: MemoryStore) -> None:
    import json

    two_tenants.edges.add([Edge.new("a3", "a4", "supports")])
    out = json.loads(json.dumps(store_stats(two_tenants).to_dict()))
    assert out["edges"] == 5 and out["index_health"]["rows"] == 10  # every tenant's rows
    assert out["index_health"]["outgrown"] is False
