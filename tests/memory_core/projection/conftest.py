"""Fixtures of the map tests: a two-topic store, a cache in tmp_path, UMAP stood in."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.projection import ProjectionCache
from memory_core.store import MemoryStore
from tests.memory_core.projection.helpers import topic_memories, use_linear_map


@pytest.fixture
def topic_store(store: MemoryStore) -> MemoryStore:
    """40 memories about LanceDB indexes and 40 about React components."""
    store.add(topic_memories(40))
    return store


@pytest.fixture
def cache(tmp_path: Path) -> ProjectionCache:
    return ProjectionCache(tmp_path / "maps")


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """`project` fits `helpers.LinearMap` instead of UMAP."""
    use_linear_map(monkeypatch)
