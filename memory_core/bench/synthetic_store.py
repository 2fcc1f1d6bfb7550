"""The search benchmark's synthetic store, written to a folder for a benchmark that runs
outside the engine: `memlens bench pages` (the web app's, `memlens_app/bench_pages.py`) renders
its pages on it. Public as `memory_core.build_bench_store`.

The store is `bench.search`'s (demo texts recombined, clustered vectors, nothing embedded),
with N/10 edges unless told, indexed as `memlens index` leaves it unless `index=False`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from memory_core.bench.search import build_store
from memory_core.embedding import load_embedder
from memory_core.model.config import Settings
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class BenchStore:
    """A synthetic store written by `build_bench_store` (seconds)."""

    uri: str
    memories: int
    edges: int
    write_s: float
    #: None when the store was left unindexed.
    index_s: float | None


def build_bench_store(folder: str | Path, n: int, *, edges: int | None = None,
                      index: bool = True, settings: Settings | None = None) -> BenchStore:
    """Write a synthetic store of `n` memories and about `edges` edges (default `n // 10`)
    in `folder/store`, then index it unless `index` is False. Progress bars go to stderr.
    The store is a scratch one: it is written even when MEMLENS_READ_ONLY is set."""
    from tqdm import tqdm

    from memory_core.store.indexes import ensure_indexes, index_steps

    if n < 1:
        raise ValueError(f"a bench store needs at least 1 memory, not {n}")
    settings = settings or Settings.from_env()
    uri = str(Path(folder) / "store")
    store = MemoryStore.open(uri, embedder=load_embedder(settings), read_only=False,
                             settings=settings)
    began = time.perf_counter()
    with tqdm(total=n, desc="writing", unit="memory", disable=None, leave=False) as bar:
        written = build_store(store, n, edges=n // 10 if edges is None else edges,
                              progress=bar.update)
    write_s = time.perf_counter() - began
    if not index:
        return BenchStore(uri=uri, memories=n, edges=written, write_s=write_s, index_s=None)
    began = time.perf_counter()
    with tqdm(total=index_steps(), desc="indexing", unit="step", disable=None,
              leave=False) as bar:
        ensure_indexes(store, progress=bar.update)
    return BenchStore(uri=uri, memories=n, edges=written, write_s=write_s,
                      index_s=time.perf_counter() - began)
