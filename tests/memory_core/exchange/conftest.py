"""Helpers shared by the exchange tests: small stores with every kind of field, file bodies."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

WHEN = datetime(2026, 10, 1, tzinfo=UTC)


def body(path: Path) -> bytes:
    """The bytes of an export after its manifest line."""
    return path.read_bytes().split(b"\n", 1)[1]


def fresh_store(folder: Path, name: str = "fresh", tenant: str = "default") -> MemoryStore:
    return MemoryStore.open(str(folder / name), embedder=FakeEmbedder(), tenant=tenant)


def sample_records() -> tuple[list[Memory], list[Edge]]:
    """Three memories (one archived, one superseded, unicode, metadata) and two edges."""
    a = Memory.new("Chose LanceDB for embedded search 🔎", "decision", id="m-a",
                   project="atlas", agent="mason", tags=["storage", "search"],
                   created_at="2026-05-01T10:00:00.123456Z", confidence=0.85,
                   metadata={"hdr_number": "HDR-0007", "nested": {"k": [1, 2.5, None]}})
    b = Memory.new("Chroma server mode dropped connections", "observation", id="m-b",
                   project="atlas", agent="iris", status="archived",
                   created_at="2026-05-02T00:00:00Z")
    c = Memory.new("Old caching decision: <script>alert('x')</script>", "decision", id="m-c",
                   project="herd", status="superseded", tags=[], why="too slow",
                   created_at="2026-04-01T00:00:00Z", access_count=3,
                   last_accessed_at="2026-06-01T00:00:00Z")
    edges = [Edge.new("m-b", "m-a", "causes", id="e-1", created_at=WHEN, strength=0.8),
             Edge.new("m-a", "m-c", "supersedes", id="e-2", created_at=WHEN)]
    return [a, b, c], edges


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    """The `store` fixture holding `sample_records()`."""
    memories, edges = sample_records()
    store.add(memories, dedup=False)
    store.edges.add(edges)
    return store
