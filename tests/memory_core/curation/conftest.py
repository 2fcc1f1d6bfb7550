"""A small store with memories and edges for the curation tests."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore


@dataclass
class Corpus:
    store: MemoryStore
    ids: list[str]
    edges: list[str]


def corpus_of(store: MemoryStore, n: int = 8) -> Corpus:
    memories = [Memory.new(f"decision {i}: the deploy of service {i} uses flag zebra{i}",
                           "decision", project="alpha" if i % 2 else "beta",
                           tags=[f"t{i % 3}"], metadata={"n": i}) for i in range(n)]
    store.add(memories)
    ids = [m.id for m in memories]
    edges = [Edge.new(ids[0], ids[1], "caused"), Edge.new(ids[1], ids[2], "supports"),
             Edge.new(ids[3], ids[0], "derived_from"), Edge.new(ids[2], ids[4], "caused")]
    store.edges.add(edges)
    return Corpus(store, ids, [e.id for e in edges])


@pytest.fixture
def corpus(store: MemoryStore) -> Corpus:
    return corpus_of(store)
