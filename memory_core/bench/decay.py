"""`memlens bench decay`: the decay analytics on a large synthetic store.

Targets on a 2-core machine at 100,000 memories with 20,000 recall and cite events:
`decay_frame` over the tenant <= 1 s, `at_risk` (30 days) <= 1 s, and `what_if` (two
parameter sets, three horizons) <= 2 s (no target was set for it; 2 s keeps the Decay page's
sliders usable). `memory_timeline` of one memory is reported too. The store is the search
benchmark's (demo texts recombined, clustered random vectors, written as Arrow batches,
nothing embedded); the events go in as one Arrow batch, a fifth of them cites, spread over
the 90 days before the decay clock. Each figure is the median of a few runs after a warm-up.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_core.bench.targets import target_figures, target_line
from memory_core.decay import DecayParams
from memory_core.embedding import Embedder, load_embedder
from memory_core.model.config import Settings
from memory_core.store import MemoryStore

FRAME_TARGET_S = 1.0
AT_RISK_TARGET_S = 1.0
WHAT_IF_TARGET_S = 2.0
#: Timed runs per figure (the median is reported), after one warm-up run.
REPEATS = 3
#: Memories whose timeline is timed.
TIMELINES = 10
CITE_SHARE = 0.2
EVENT_DAYS = 90
#: The decay clock: the end of the demo corpus the synthetic memories copy.
AS_OF = datetime(2026, 10, 1, tzinfo=UTC)

Progress = Callable[[int], None]


@dataclass(frozen=True)
class DecayBench:
    """Figures of one decay benchmark run (seconds unless named otherwise)."""

    memories: int
    active: int
    events: int
    write_s: float
    frame_s: float
    at_risk_s: float
    at_risk_rows: int
    what_if_s: float
    below_now: int
    timeline_p50_ms: float

    def ratios(self) -> dict[str, float]:
        """Each figure over its target (<= 1 meets it)."""
        return {"frame": self.frame_s / FRAME_TARGET_S,
                "at_risk": self.at_risk_s / AT_RISK_TARGET_S,
                "what_if": self.what_if_s / WHAT_IF_TARGET_S}

    def to_dict(self) -> dict[str, Any]:
        """Every figure, its ratio to the target and whether it meets it, as plain data."""
        ratios = self.ratios()
        return {**asdict(self), **target_figures(
            {"frame": FRAME_TARGET_S, "at_risk": AT_RISK_TARGET_S,
             "what_if": WHAT_IF_TARGET_S}, ratios)}

    def lines(self) -> list[str]:
        """The figures as text lines, each with its target and ratio."""
        ratios = self.ratios()

        def line(label: str, seconds: float, key: str, target: float, extra: str = "") -> str:
            return target_line(label, seconds, ratios[key], target, extra=extra, width=34,
                               digits=3)

        return [
            f"store: {self.memories} memories ({self.active} active), {self.events} recall "
            f"and cite events; written in {self.write_s:.1f} s",
            line(f"decay_frame over {self.active}", self.frame_s, "frame", FRAME_TARGET_S,
                 f"  {self.below_now} below 0.5"),
            line("at_risk (within 30 days)", self.at_risk_s, "at_risk", AT_RISK_TARGET_S,
                 f"  {self.at_risk_rows} at risk"),
            line("what_if (2 params x 3 horizons)", self.what_if_s, "what_if",
                 WHAT_IF_TARGET_S),
            f"{'memory_timeline (one memory)':<34}p50 {self.timeline_p50_ms:.0f} ms over "
            f"{TIMELINES} memories (no target)",
            f"medians of {REPEATS} runs after a warm-up",
        ]


def synthetic_events(store: MemoryStore, ids: list[str], count: int, *, seed: int = 0
                     ) -> Any:
    """`count` recall and cite events (a `CITE_SHARE` of cites) of random `ids`, at random
    times in the `EVENT_DAYS` before `AS_OF`, as an Arrow table in the events schema."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(ids), count)
    offsets = rng.uniform(0, EVENT_DAYS * 86_400, count)
    kinds = np.where(rng.random(count) < CITE_SHARE, "cite", "recall")
    ints = rng.integers(0, 2**63, (count, 2), dtype=np.uint64)
    schema = store.schemas()["event"]
    columns = {
        "id": [str(uuid.UUID(int=(int(a) << 64) | int(b), version=4)) for a, b in ints],
        "tenant": [store.tenant] * count,
        "at": [AS_OF - timedelta(seconds=float(s)) for s in offsets],
        "event_kind": kinds.tolist(),
        "memory_id": [ids[i] for i in picks],
        "actor": ["bench"] * count,
        "session_id": [f"bench-{i % 500}" for i in range(count)],
        "query": [None] * count,
        "metadata": ["{}"] * count,
    }
    return pa.Table.from_pydict({name: columns[name] for name in schema.names}, schema=schema)


def build_store(store: MemoryStore, memories: int, events: int, *, seed: int = 0,
                progress: Progress | None = None) -> int:
    """Write the search benchmark's synthetic memories and `events` events; returns how
    many memories are active."""
    from memory_core.bench.search import synthetic_batches

    ids: list[str] = []
    active = 0
    for table, _ in synthetic_batches(store, memories, seed=seed):
        store.bulk.append("memory", table)
        ids.extend(table["id"].to_pylist())
        active += sum(s == "active" for s in table["status"].to_pylist())
        if progress is not None:
            progress(table.num_rows)
    if events:
        store.bulk.append("event", synthetic_events(store, ids, events, seed=seed))
    return active


def _median_s(fn: Callable[[], Any]) -> tuple[float, Any]:
    """The median time of `REPEATS` runs of `fn` after a warm-up, and its last result."""
    out = fn()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def time_analytics(store: MemoryStore) -> dict[str, Any]:
    """Time decay_frame, at_risk, what_if and a few timelines on `store` at `AS_OF`."""
    import polars as pl

    from memory_core.decay.analysis import at_risk, decay_frame, memory_timeline, what_if

    frame_s, frame = _median_s(lambda: decay_frame(store, as_of=AS_OF))
    risk_s, risky = _median_s(lambda: at_risk(store, within_days=30, as_of=AS_OF))
    slower = DecayParams(stability_scale=0.5)
    what_if_s, _ = _median_s(lambda: what_if(store, DecayParams(), slower, as_of=AS_OF))
    sample = frame["id"].head(TIMELINES).to_list()
    timings = []
    for memory_id in sample:
        start = time.perf_counter()
        memory_timeline(store, memory_id, as_of=AS_OF)
        timings.append(time.perf_counter() - start)
    return {"frame_s": frame_s, "at_risk_s": risk_s, "at_risk_rows": risky.height,
            "what_if_s": what_if_s,
            "below_now": frame.filter(pl.col("days_to_threshold") == 0).height,
            "timeline_p50_ms": statistics.median(timings) * 1000.0 if timings else 0.0}


def run_decay_bench(memories: int = 100_000, *, events: int = 20_000,
                    embedder: Embedder | None = None, settings: Settings | None = None,
                    folder: Path | None = None) -> DecayBench:
    """Build the synthetic store (in `folder`, kept, or a temporary folder) and time the
    decay analytics. Nothing is embedded: `embedder` (default: the configured one) only sets
    the vectors' dimension."""
    if memories < 1 or events < 0:
        raise ValueError("--memories must be at least 1 and --events at least 0")
    from tqdm import tqdm

    settings = settings or Settings.from_env()
    embedder = embedder or load_embedder(settings)
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        root = folder or Path(tmp)
        store = MemoryStore.open(str(root / "store"), embedder=embedder, read_only=False,
                                 settings=settings)  # a scratch store, whatever READ_ONLY
        start = time.perf_counter()
        with tqdm(total=memories, desc="writing", unit="memory", disable=None,
                  leave=False) as bar:
            active = build_store(store, memories, events, progress=bar.update)
        write_s = time.perf_counter() - start
        figures = time_analytics(store)
    return DecayBench(memories=memories, active=active, events=events, write_s=write_s,
                      **figures)
