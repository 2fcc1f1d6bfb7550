"""`memlens bench exchange`: export, import and diff times on a synthetic store.

Targets on a 2-core machine at n = 100,000 memories: export <= 5 s,
import of an export with vectors <= 15 s, diff of two exports differing in 1% of their
records <= 2 s. The store is built with random unit vectors (no embedding) and about one edge
per memory; peak resident memory is sampled during each timed step.
"""

from __future__ import annotations

import resource
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from memory_core.embedding import UnavailableEmbedder
from memory_core.model.schema import MEMORY_TYPES, RELATIONS
from memory_core.model.values import content_hash
from memory_core.store import MemoryStore

EXPORT_TARGET_S = 5.0
IMPORT_TARGET_S = 15.0
DIFF_TARGET_S = 2.0
BENCH_MODEL = "bench/random-unit"


@dataclass(frozen=True)
class ExchangeBench:
    """Figures of one exchange benchmark run (seconds, MiB)."""

    n: int
    edges: int
    dimension: int
    export_s: float
    export_vectors_s: float
    import_vectors_s: float
    diff_s: float
    diff_changed_records: int
    export_mb: float
    export_vectors_mb: float
    #: How far the resident set rose above its level at the start of each step.
    rss_growth_mib: dict[str, float]
    max_rss_mib: float
    export_within_target: bool
    import_within_target: bool
    diff_within_target: bool


def _rss_mib() -> float:
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:  # not Linux: fall back to the process peak
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def peak_rss(into: dict[str, float], name: str) -> Iterator[None]:
    """Sample the resident set every 20 ms while the block runs; store how far its peak rose
    above the resident set at the start, in MiB (what the step itself needed)."""
    start = _rss_mib()
    peak = [start]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _rss_mib())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        into[name] = round(max(peak[0], _rss_mib()) - start, 1)


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def synthetic_store(path: str, n: int, *, dimension: int = 384, seed: int = 7) -> MemoryStore:
    """A store of `n` memories with random unit vectors and about `n` edges, written directly
    as Arrow batches (validation and embedding are not what this benchmark measures)."""
    store = MemoryStore.open(path, embedder=UnavailableEmbedder(BENCH_MODEL, dimension,
                                                                "benchmark: no embedding"),
                             read_only=False)  # a scratch store, whatever MEMLENS_READ_ONLY
    rng = np.random.default_rng(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [str(uuid.UUID(int=int(x), version=4)) for x in rng.integers(0, 2**62, n)]
    types = [MEMORY_TYPES[i % len(MEMORY_TYPES)] for i in range(n)]
    batch = 20_000
    for lo in range(0, n, batch):
        hi = min(n, lo + batch)
        vectors = rng.standard_normal((hi - lo, dimension)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        contents = [f"Synthetic memory {i}: the {types[i]} about component {i % 997} of "
                    f"project p{i % 13} says retry budget {i % 31}." for i in range(lo, hi)]
        created = [start + timedelta(seconds=61 * i) for i in range(lo, hi)]
        rows = {
            "id": ids[lo:hi], "content": contents, "memory_type": types[lo:hi],
            "status": ["active" if i % 17 else "archived" for i in range(lo, hi)],
            "tenant": ["default"] * (hi - lo),
            "project": [f"p{i % 13}" for i in range(lo, hi)],
            "agent": [f"agent{i % 5}" for i in range(lo, hi)],
            "tags": [[f"t{i % 7}", f"t{i % 11}"] for i in range(lo, hi)],
            "created_at": created, "updated_at": created,
            "content_hash": [content_hash(c) for c in contents],
            "importance": ["normal"] * (hi - lo), "stability": [30.0] * (hi - lo),
            "confidence": [0.8] * (hi - lo), "access_count": [i % 9 for i in range(lo, hi)],
            "embedding_status": ["ok"] * (hi - lo),
            "metadata": [f'{{"component":"c{i % 997}"}}' for i in range(lo, hi)],
        }
        schema = store.schemas()["memory"]
        columns = [rows.get(name, [None] * (hi - lo)) for name in schema.names]
        columns[schema.get_field_index("vector")] = pa.FixedSizeListArray.from_arrays(
            pa.array(vectors.ravel()), type=schema.field("vector").type)
        store.bulk.append("memory", pa.Table.from_arrays(columns, schema=schema))
    sources, targets = rng.integers(0, n, n), rng.integers(0, n, n)
    keep = sources != targets
    edge_rows = [{"id": str(uuid.UUID(int=int(rng.integers(0, 2**62)), version=4)),
                  "tenant": "default", "source_id": ids[s], "target_id": ids[t],
                  "relation": RELATIONS[k % len(RELATIONS)], "strength": 0.5, "evidence": [],
                  "created_at": start, "last_reinforced": start, "decay_rate": 0.01,
                  "status": "active", "metadata": "{}"}
                 for k, (s, t) in enumerate(zip(sources[keep], targets[keep], strict=True))]
    store.bulk.append("edge", pa.Table.from_pylist(edge_rows, schema=store.schemas()["edge"]))
    return store


def _change_one_percent(store: MemoryStore) -> int:
    """Change 0.5%, delete 0.25% and add 0.25% of the memories; returns records touched."""

    column = store.bulk.scan(["id"])["id"]
    ids = sorted(column.to_pylist())[::100]
    quarter = len(ids) // 4
    changed, removed, copied = ids[: 2 * quarter], ids[2 * quarter: 3 * quarter], ids[3 * quarter:]
    memories = store.get_many(changed, with_vectors=True)
    store.upsert([m.with_changes(content=m.content + " (revised)") for m in memories.values()])
    if removed:
        store.bulk.delete_ids("memory", removed)
    extra = [m.with_changes(id=f"{m.id}-copy")
             for m in store.get_many(copied, with_vectors=True).values()]
    store.add(extra, dedup=False)
    return len(changed) + len(removed) + len(extra)


def run_exchange_bench(n: int = 100_000, *, dimension: int = 384,
                       folder: Path | None = None) -> ExchangeBench:
    """Build a synthetic store of `n` memories and time export, import and diff."""
    from memory_core.exchange.diff import diff_sides
    from memory_core.exchange.diff_sides import load_side
    from memory_core.exchange.export import export_store
    from memory_core.exchange.importer import import_file

    peaks: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memlens-bench-", dir=folder) as tmp:
        root = Path(tmp)
        store = synthetic_store(str(root / "store"), n, dimension=dimension)
        edges = store.bulk.count("edge")
        plain, with_vectors, changed = root / "a.ndjson", root / "v.ndjson", root / "b.ndjson"
        with peak_rss(peaks, "export"):
            export_s = _timed(lambda: export_store(store, plain))
        with peak_rss(peaks, "export_vectors"):
            export_v_s = _timed(lambda: export_store(store, with_vectors, with_vectors=True))
        target = MemoryStore.open(str(root / "restored"), embedder=store.embedder,
                                  read_only=False)
        with peak_rss(peaks, "import_vectors"):
            import_s = _timed(lambda: import_file(target, with_vectors, embed=False))
        touched = _change_one_percent(store)
        export_store(store, changed)
        result: list[Any] = []
        with peak_rss(peaks, "diff"):
            diff_s = _timed(lambda: result.append(diff_sides(load_side(str(plain)),
                                                              load_side(str(changed)))))
        sizes = plain.stat().st_size / 2**20, with_vectors.stat().st_size / 2**20
    counts = result[0].counts["memory"]
    return ExchangeBench(
        n=n, edges=edges, dimension=dimension, export_s=round(export_s, 2),
        export_vectors_s=round(export_v_s, 2), import_vectors_s=round(import_s, 2),
        diff_s=round(diff_s, 2),
        diff_changed_records=counts.added + counts.removed + counts.changed,
        export_mb=round(sizes[0], 1), export_vectors_mb=round(sizes[1], 1),
        rss_growth_mib=peaks,
        max_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        export_within_target=export_s <= EXPORT_TARGET_S,
        import_within_target=import_s <= IMPORT_TARGET_S,
        diff_within_target=diff_s <= DIFF_TARGET_S and touched > 0,
    )
