"""The MCP server's warm-up: it loads the model and reads the store, writes nothing, and
never leaves the tool lock held (a server whose warm-up failed must still answer)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from memory_core.agents.warm_up import warm_up
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder


def test_warm_up_loads_the_model_writes_nothing_and_frees_the_lock(
        store: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    memory = Memory.new("we chose LanceDB for the memory store", memory_type="decision")
    store.add([memory])
    calls = fake_embedder.calls
    lock = threading.Lock()
    thread = warm_up(store, lock)
    assert lock.locked() or not thread.is_alive()  # taken before the thread starts
    thread.join(timeout=60)
    assert not lock.locked()
    assert fake_embedder.calls > calls
    # a search, not a recall: no access counted, no event (it may build a missing index)
    assert store.get(memory.id).access_count == 0
    assert store.events.query(kinds=["recall"]) == []


class _Broken(FakeEmbedder):
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderUnavailableError("the embedding model cannot be loaded")


def test_a_failed_warm_up_still_frees_the_lock(store_path: str) -> None:
    store = MemoryStore.open(store_path, embedder=_Broken(), tenant="default")
    lock = threading.Lock()
    warm_up(store, lock).join(timeout=60)
    assert lock.acquire(timeout=1)
