"""A two-tenant store whose counts are worked out by hand in the tests (stats/)."""

from __future__ import annotations

import pytest

from memory_core.embedding import UnavailableEmbedder
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder

#: Tenant "default": 5 active memories (three share a text, two of them under another type),
#: one archived copy of an active text, one superseded, one active without a vector.
#: Tenant "acme" holds copies of the shared text too: they must count for nobody else.
SHARED = "Auth refresh race fixed with a mutex"


def _default_memories() -> list[Memory]:
    return [
        Memory.new(SHARED, "decision", id="a1", project="atlas", agent="mason",
                   tags=["auth", "race"], created_at="2026-03-02T10:00:00Z"),
        Memory.new(SHARED, "decision", id="a2", project="atlas", agent="iris",
                   tags=["auth"], created_at="2026-03-03T10:00:00Z"),
        Memory.new(SHARED, "fact", id="a3", importance="critical",
                   created_at="2026-03-10T10:00:00Z"),
        Memory.new("Tokens expire after an hour", "fact", id="a4", project="herd",
                   agent="mason", tags=["auth", "tokens"], created_at="2026-03-11T10:00:00Z"),
        Memory.new("Old caching decision", "decision", id="r1", project="herd",
                   status="archived", tags=["cache"], created_at="2026-03-12T10:00:00Z"),
        Memory.new("Tokens expire after an hour", "fact", id="r2", project="herd",
                   status="archived", created_at="2026-03-12T11:00:00Z"),
        Memory.new("Caching moved to Redis", "decision", id="s1", project="herd",
                   status="superseded", created_at="2026-03-13T10:00:00Z"),
    ]


@pytest.fixture
def two_tenants(store_path: str, fake_embedder: FakeEmbedder) -> MemoryStore:
    """Tenant "default" of a store that also holds tenant "acme" (see `SHARED`)."""
    store = MemoryStore.open(store_path, embedder=fake_embedder)
    store.add(_default_memories(), dedup=False)
    offline = MemoryStore.open(store_path, embedder=UnavailableEmbedder(
        "test/fake-bow", FAKE_DIM, "offline"))
    offline.add([Memory.new("Written while the model was away", "observation", id="p1",
                            project="atlas", tags=["offline"],
                            created_at="2026-03-20T10:00:00Z")])
    acme = MemoryStore.open(store_path, tenant="acme", embedder=fake_embedder)
    acme.add([Memory.new(SHARED, "decision", id="x1", project="acme-proj", tags=["acmezq"]),
              Memory.new(SHARED, "decision", id="x2", project="acme-proj")], dedup=False)
    store.edges.add([
        Edge.new("a1", "a4", "caused"),
        Edge.new("a2", "s1", "supersedes"),   # to a superseded memory: not dangling
        Edge.new("a4", "gone", "caused"),     # to a memory that is not there: dangling
        Edge.new("a1", "x1", "relates_to"),   # to the other tenant's memory: dangling here
    ], check_endpoints=False)
    acme.edges.add([Edge.new("x1", "nowhere", "caused")], check_endpoints=False)
    return store
