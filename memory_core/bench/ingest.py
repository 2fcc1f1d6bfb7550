"""`memlens bench ingest`: embedding throughput, batched add throughput, single-add latency.

Targets on a 2-core machine: memlens' embedding within 20% of raw
fastembed on the same texts in the same run, and single-record add p99 <= 50 ms (embedding
included).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory_core.embedding import Embedder, FastEmbedEmbedder, load_embedder
from memory_core.embedding.offline import offline_model_dir
from memory_core.embedding.packaged_model import PackagedModelEmbedder
from memory_core.model.config import DEFAULT_MODEL, Settings
from memory_core.model.errors import MemlensError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore

EMBED_TARGET_RATIO = 1.20
SINGLE_ADD_P99_TARGET_MS = 50.0


@dataclass(frozen=True)
class IngestBench:
    """Figures of one ingest benchmark run."""

    n: int
    raw_fastembed_texts_per_s: float
    memlens_embed_texts_per_s: float
    embed_time_ratio: float
    batched_add_records_per_s: float
    single_adds: int
    single_add_p50_ms: float
    single_add_p99_ms: float
    embed_within_target: bool
    single_add_within_target: bool


def bench_texts(n: int) -> list[str]:
    """`n` realistic, distinct memory texts (the demo corpus, cycled with a suffix)."""
    from memory_core.bench.demo_records import demo_records

    base = [m.content for m in demo_records().memories]
    return [base[i % len(base)] + ("" if i < len(base) else f" (variant {i // len(base)})")
            for i in range(n)]


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _raw_fastembed(embedder: Embedder, settings: Settings) -> Any:
    """fastembed's own `TextEmbedding` of the model `embedder` runs: the reference whose
    throughput memlens' embedding is held to."""
    if isinstance(embedder, PackagedModelEmbedder):
        cache = settings.model_cache
        embedder = FastEmbedEmbedder(DEFAULT_MODEL, embedder.dimension,
                                     model_dir=lambda: offline_model_dir(cache))
    if not isinstance(embedder, FastEmbedEmbedder):
        raise MemlensError("the ingest benchmark needs a model: unset MEMLENS_EMBED_MODEL=none")
    embedder.preload()
    return embedder._load()


def run_ingest_bench(n: int = 1000, *, single_adds: int = 200,
                     settings: Settings | None = None) -> IngestBench:
    """Run the ingest benchmark on `n` texts in a temporary store."""
    settings = settings or Settings.from_env()
    embedder = load_embedder(settings)
    texts = bench_texts(n)
    raw_model = _raw_fastembed(embedder, settings)
    embedder.embed(texts[:64])  # warm both paths
    raw = _time(lambda: list(raw_model.embed(texts, batch_size=32)))
    ours_vectors: list[np.ndarray] = []
    ours = _time(lambda: ours_vectors.append(embedder.embed(texts, batch_size=32)))
    vectors = ours_vectors[0]
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        store = MemoryStore.open(str(Path(tmp) / "store"), embedder=embedder, read_only=False,
                                 settings=settings)  # a scratch store, whatever MEMLENS_READ_ONLY
        memories = [Memory.new(t, "observation", vector=v) for t, v in zip(texts, vectors,
                                                                          strict=True)]
        batched = _time(lambda: store.add(memories, dedup=True))
        store.bulk.optimize()
        latencies = []
        for i in range(single_adds):
            memory = Memory.new(f"single add {i}: {texts[i % n]}", "observation")
            start = time.perf_counter()
            store.add([memory])
            latencies.append(time.perf_counter() - start)
    p50, p99 = (float(np.percentile(latencies, q) * 1000) for q in (50, 99))
    ratio = ours / raw
    return IngestBench(
        n=n,
        raw_fastembed_texts_per_s=n / raw,
        memlens_embed_texts_per_s=n / ours,
        embed_time_ratio=ratio,
        batched_add_records_per_s=n / batched,
        single_adds=single_adds,
        single_add_p50_ms=p50,
        single_add_p99_ms=p99,
        embed_within_target=ratio <= EMBED_TARGET_RATIO,
        single_add_within_target=p99 <= SINGLE_ADD_P99_TARGET_MS,
    )
