"""Warming a store before serving it: the embedding model and one search, on a thread.

`memlens mcp` starts this as soon as the store is open, before it imports the MCP SDK, so
the model's load and the store's first reads (its indexes, rows and graph) overlap that
import instead of delaying the client's first call. The warm-up holds the server's tool
lock until it is done: a call that arrives earlier waits for it rather than racing it.
Nothing is written: the search is not a recall, so no access or event is recorded.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace

from memory_core.model.errors import MemlensError
from memory_core.retrieval.config import RECALL_PRESET, RankingConfig, preset
from memory_core.store import MemoryStore

log = logging.getLogger(__name__)

#: What the warm-up searches for: any text does; its results are thrown away.
WARM_UP_QUERY = "what was decided"


def warm_up(store: MemoryStore, lock: threading.Lock) -> threading.Thread:
    """Take `lock`, then load `store`'s embedding model and run one search on a daemon
    thread that releases `lock` when done (also when the model or the store fails: the
    tools report that themselves, each time it matters)."""
    lock.acquire()

    def run() -> None:
        try:
            reads = threading.Thread(target=_read, args=(store, _keywords_only()),
                                     name="memlens-warm-up-reads", daemon=True)
            reads.start()  # the model loads in native code: the two overlap
            store.embedder.embed([WARM_UP_QUERY])
            reads.join()
            _read(store, None)  # the vector index, and whatever else the recall reads
        except MemlensError as exc:
            log.info("warm-up of %s failed: %s", store.uri, exc)
        finally:
            lock.release()

    thread = threading.Thread(target=run, name="memlens-warm-up", daemon=True)
    thread.start()
    return thread


def _keywords_only() -> RankingConfig:
    """Recall's ranking without the vector engine: it reads what recall reads (the full-text
    index, rows, graph and sessions) without the model."""
    return replace(preset(RECALL_PRESET), use_vector=False)


def _read(store: MemoryStore, config: RankingConfig | None) -> None:
    """One search with recall's ranking (`config`, else recall's own); failures are the
    tools' to report."""
    from memory_core.retrieval.search import search

    try:
        search(store, WARM_UP_QUERY, config=config or preset(RECALL_PRESET), limit=5)
    except MemlensError as exc:
        log.info("warm-up read of %s failed: %s", store.uri, exc)
