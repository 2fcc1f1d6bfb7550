"""A hand-built store for the consolidation tests: three clusters of four observations with
controlled vectors (around three orthogonal axes of the fake embedder's 16), two loners, a
decision (not an eligible type) beside cluster A, and a pair that only an edge ties."""

from __future__ import annotations

import numpy as np

from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM

CLUSTERS: dict[str, list[str]] = {
    "a": ["The cache misses at start after each deploy.",
          "Cache misses spike at start. Nobody warmed it.",
          "Warming the cache at start fixed the misses.",
          "After warming, cache misses at start stay under one percent."],
    "b": ["The nightly export job times out on large tenants.",
          "Export timeouts come from one unindexed query.",
          "Indexing the query made the export finish in minutes.",
          "The export job has not timed out since the index landed."],
    "c": ["Login fails for users with plus signs in their email.",
          "The email validator rejects plus signs.",
          "A looser validator lets plus-sign emails log in.",
          "No login failure for plus-sign emails since the fix."],
}
AXES = {"a": 0, "b": 4, "c": 8}


def unit(axis: int, noise: np.ndarray, scale: float = 0.15) -> list[float]:
    vector = np.zeros(FAKE_DIM)
    vector[axis] = 1.0
    vector = vector + scale * noise
    return list(vector / np.linalg.norm(vector))


def build(store: MemoryStore) -> dict[str, list[str]]:
    """Write the clusters (ids a0..c3), loners x and y, decision d (near cluster a) and the
    edge-tied pair e0, e1 (cosine 0.2, one `relates_to` edge); returns cluster -> ids."""
    rng = np.random.default_rng(7)
    memories = []
    for name, texts in CLUSTERS.items():
        for k, text in enumerate(texts):
            memories.append(Memory.new(
                text, "observation" if k % 2 == 0 else "event", id=f"{name}{k}",
                project="shop", agent=f"agent-{k % 2}",
                created_at=f"2026-0{AXES[name] // 4 + 1}-1{k}T10:00:00Z",
                vector=unit(AXES[name], rng.standard_normal(FAKE_DIM))))
    memories += [
        Memory.new("The office plant needs water.", "observation", id="x", project="shop",
                   vector=unit(12, np.zeros(FAKE_DIM))),
        Memory.new("Lunch moved to noon.", "observation", id="y", project="shop",
                   vector=unit(13, np.zeros(FAKE_DIM))),
        Memory.new("Warm the cache at start.", "decision", id="d", project="shop",
                   vector=unit(0, rng.standard_normal(FAKE_DIM))),
    ]
    tied = np.zeros(FAKE_DIM)
    tied[14], tied[15] = 0.2, np.sqrt(1 - 0.04)
    memories += [
        Memory.new("Billing emails bounce for one customer.", "observation", id="e0",
                   project="shop", vector=unit(14, np.zeros(FAKE_DIM), 0)),
        Memory.new("That customer's mail server blocks our domain.", "learning", id="e1",
                   project="shop", vector=list(tied)),
    ]
    store.add(memories)
    store.edges.add([Edge.new("e1", "e0", "relates_to")])
    return {name: [f"{name}{k}" for k in range(4)] for name in CLUSTERS}
