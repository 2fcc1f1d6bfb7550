"""A store with two obvious topics for map tests, and a linear stand-in for UMAP for the
tests of everything around the layout (a stand-in's coordinates are easy to predict)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from memory_core.embedding.base import UnavailableEmbedder
from memory_core.model.records import Memory
from memory_core.projection.params import MapParams
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder

#: The words of each topic: the fake embedder puts texts sharing words close together.
TOPICS = {
    "lancedb": "lancedb index vector ivf recall partitions quantization table".split(),
    "react": "react component hook state props render effect jsx".split(),
}


def topic_memories(per_topic: int, *, seed: int = 0) -> list[Memory]:
    """`per_topic` memories of each topic, six topic words each (plus a unique word, so no
    two share a content hash), typed and attributed by topic."""
    rng = random.Random(seed)
    out = []
    for topic, words in TOPICS.items():
        for i in range(per_topic):
            content = " ".join(rng.choices(words, k=6)) + f" note{topic}{i}"
            out.append(Memory.new(content, "decision" if i % 3 else "lesson",
                                  project=topic, agent=f"agent-{i % 2}"))
    return out


def add_pending(store: MemoryStore, content: str) -> None:
    """Add a memory the way it is written when the model is off: no vector, pending."""
    offline = MemoryStore.open(store.uri, tenant=store.tenant, embedder=UnavailableEmbedder(
        FakeEmbedder.model_id, FAKE_DIM, "model switched off for the test"))
    offline.add([Memory.new(content, "fact")])


class LinearMap:
    """What the fast tests fit instead of UMAP: the vectors projected on fixed random
    directions (seeded), so it is deterministic, picklable and has UMAP's `transform`."""

    def __init__(self, dims: int, seed: int, n_neighbors: int) -> None:
        self.n_components = dims
        self.n_neighbors = n_neighbors
        self.basis = np.random.default_rng(seed).standard_normal((FAKE_DIM, dims))

    def transform(self, vectors: np.ndarray) -> np.ndarray:
        return np.asarray(vectors, dtype=np.float64) @ self.basis


def linear_fit(vectors: np.ndarray, params: MapParams, n_neighbors: int,
               known: Any = None, advance: Any = None) -> tuple[Any, np.ndarray]:
    """`reducer.fit`'s stand-in."""
    model = LinearMap(params.dims, params.seed, n_neighbors)
    return model, model.transform(vectors)


def use_linear_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `project` fit `LinearMap` instead of UMAP, with no engine to load (for tests of
    everything but the layout itself: the cache, counts, notes, progress, the CLI)."""
    from memory_core.projection import engine, reducer

    monkeypatch.setattr(reducer, "fit", linear_fit)
    monkeypatch.setattr(engine, "prepare_in_background", lambda kernels, cache_dir=None: None)
