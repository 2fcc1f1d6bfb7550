"""`memlens bench consolidate`: consolidation candidates, one consolidate, its impact preview
and a purge that follows lineage, against their targets.

* Candidates over 100,000 memories <= 30 s: the search benchmark's synthetic store (demo
  texts recombined, clustered random unit vectors, about one edge per ten memories, written
  as Arrow batches, nothing embedded), indexed as `memlens index` leaves it.
* One `consolidate` <= 1 s: the strongest candidates of that store accepted one by one
  (their rule-based drafts, the reflection embedded by the configured model); the slowest
  one is held to the target.
* An impact preview on the demo query set <= 20 s: the demo store (seeded with its query
  set), previewing the consolidation of its strongest candidate with its sources archived.
* A purge with derived memories on the demo store within 1.2x a plain purge of the same
  number of ids: `delete(sources, purge=True, with_derived=True)` on one copy of the demo
  store, `delete(sources + what derives from them, purge=True)` on another; each run three
  times on fresh copies, in alternating order, the fastest of each kept (a purge compacts
  the tables, whose time varies with the machine's load).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from memory_core.bench.targets import target_figures, target_line
from memory_core.embedding import Embedder, load_embedder
from memory_core.model.config import Settings
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.store import MemoryStore

CANDIDATES_TARGET_S = 30.0
CONSOLIDATE_TARGET_S = 1.0
IMPACT_TARGET_S = 20.0
PURGE_RATIO_TARGET = 1.2
#: Consolidations timed one by one; demo sources whose lineage purge is timed; rounds of it.
CONSOLIDATIONS = 5
PURGE_SOURCES = 10
PURGE_ROUNDS = 3

T = TypeVar("T")


@dataclass(frozen=True)
class ConsolidateBench:
    """Figures of one run (seconds unless named otherwise)."""

    memories: int
    write_s: float
    index_s: float
    candidates: int
    candidates_s: float
    consolidations: int
    consolidate_p50_s: float
    consolidate_max_s: float
    demo_memories: int
    impact_queries: int
    impact_changed: int
    impact_s: float
    purge_sources: int
    purge_ids: int
    purge_with_derived_s: float
    purge_plain_s: float

    @property
    def purge_ratio(self) -> float:
        return self.purge_with_derived_s / self.purge_plain_s if self.purge_plain_s else 0.0

    def ratios(self) -> dict[str, float]:
        """Each figure over its target (<= 1 meets it)."""
        return {"candidates": self.candidates_s / CANDIDATES_TARGET_S,
                "consolidate": self.consolidate_max_s / CONSOLIDATE_TARGET_S,
                "impact": self.impact_s / IMPACT_TARGET_S,
                "purge_with_derived": self.purge_ratio / PURGE_RATIO_TARGET}

    def to_dict(self) -> dict[str, Any]:
        """Every figure, its ratio to the target and whether it meets it, as plain data."""
        return {**asdict(self), "purge_ratio": self.purge_ratio,
                "purge_ratio_target": PURGE_RATIO_TARGET,
                **target_figures({"candidates": CANDIDATES_TARGET_S,
                                  "consolidate": CONSOLIDATE_TARGET_S,
                                  "impact": IMPACT_TARGET_S}, self.ratios())}

    def lines(self) -> list[str]:
        """The figures as text lines, each with its target and ratio."""
        r = self.ratios()
        verdict = "PASS" if r["purge_with_derived"] <= 1.0 else "FAIL"
        return [
            f"store: {self.memories} memories; written in {self.write_s:.1f} s, indexed in "
            f"{self.index_s:.1f} s",
            target_line(f"candidates ({self.candidates} found)", self.candidates_s,
                        r["candidates"], CANDIDATES_TARGET_S),
            target_line("one consolidate (slowest)", self.consolidate_max_s,
                        r["consolidate"], CONSOLIDATE_TARGET_S,
                        extra=f"  p50 {self.consolidate_p50_s:.2f} s of "
                              f"{self.consolidations}"),
            f"demo store: {self.demo_memories} memories",
            target_line(f"impact preview ({self.impact_queries} queries)", self.impact_s,
                        r["impact"], IMPACT_TARGET_S,
                        extra=f"  {self.impact_changed} queries changed"),
            f"{f'purge {self.purge_sources} + derived':<30}{self.purge_with_derived_s:7.2f} s"
            f"  ({self.purge_ids} ids; a plain purge of {self.purge_ids}: "
            f"{self.purge_plain_s:.2f} s; ratio {self.purge_ratio:.2f}, target <= "
            f"{PURGE_RATIO_TARGET:.1f}x) {verdict}",
        ]


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _synthetic(store: MemoryStore, memories: int) -> float:
    """Write the search benchmark's synthetic memories and edges; seconds taken."""
    from tqdm import tqdm

    from memory_core.bench.search import synthetic_batches, synthetic_edges

    start = time.perf_counter()
    ids: list[str] = []
    topics: list[int] = []
    with tqdm(total=memories, desc="writing", unit="memory", disable=None,
              leave=False) as bar:
        for table, batch_topics in synthetic_batches(store, memories):
            store.bulk.append("memory", table)
            ids.extend(table["id"].to_pylist())
            topics.extend(int(t) for t in batch_topics)
            bar.update(table.num_rows)
    store.edges.add(synthetic_edges(ids, topics, memories // 10, tenant=store.tenant),
                    check_endpoints=False, reason="bench consolidate")
    return time.perf_counter() - start


def time_candidates(store: MemoryStore) -> dict[str, Any]:
    """Candidates over the store, then the strongest `CONSOLIDATIONS` accepted one by one."""
    import numpy as np

    from memory_core.consolidation import consolidation_candidates
    from memory_core.curation import consolidate

    candidates_s, found = _timed(lambda: consolidation_candidates(store))
    times = []
    for c in found[:CONSOLIDATIONS]:
        start = time.perf_counter()
        consolidate(store, c.members, c.draft, method="rule_based", candidate_id=c.id,
                    reason="bench consolidate")
        times.append(time.perf_counter() - start)
    return {"candidates": len(found), "candidates_s": candidates_s,
            "consolidations": len(times),
            "consolidate_p50_s": float(np.percentile(times, 50)) if times else 0.0,
            "consolidate_max_s": max(times, default=0.0)}


def time_impact(store: MemoryStore) -> dict[str, Any]:
    """The impact preview of consolidating the demo's strongest candidate, sources archived."""
    from memory_core.consolidation import consolidation_candidates
    from memory_core.impact_preview.measure import impact

    (top,) = consolidation_candidates(store, limit=1)
    seconds, report = _timed(lambda: impact(store, "consolidate", list(top.members),
                                            top.draft, archive_sources=True,
                                            method="rule_based"))
    return {"impact_queries": len(report.queries.queries),
            "impact_changed": len(report.changes), "impact_s": seconds}


def _lineage_sources(store: MemoryStore, count: int) -> list[str]:
    """`count` memories (by id) that a reflection derives from."""
    targets = sorted({e.target_id for e in store.edges.list() if e.relation == "derived_from"
                      and e.status == "active"})
    return targets[:count]


def time_lineage_purge(demo: Path, embedder: Embedder, settings: Settings,
                       sources: int) -> dict[str, Any]:
    """The purge with derived memories and the plain purge of as many ids, each on fresh
    copies of the demo store `demo`, `PURGE_ROUNDS` times; the faster of each."""
    from memory_core.curation import delete
    from memory_core.curation.lineage import derived_closure

    live = MemoryStore.open(str(demo), embedder=embedder, settings=settings)
    picked = _lineage_sources(live, sources)
    everything = [*picked, *(d.id for d in derived_closure(live, picked))]
    best = {"with": float("inf"), "plain": float("inf")}
    for n in range(PURGE_ROUNDS):
        for kind in ("with", "plain") if n % 2 == 0 else ("plain", "with"):
            copy = demo.parent / f"purge-{kind}-{n}"
            shutil.copytree(demo, copy)
            store = MemoryStore.open(str(copy), embedder=embedder, settings=settings)
            start = time.perf_counter()
            if kind == "with":
                delete(store, picked, purge=True, with_derived=True)
            else:
                delete(store, everything, purge=True)
            best[kind] = min(best[kind], time.perf_counter() - start)
            shutil.rmtree(copy, ignore_errors=True)
    return {"purge_sources": len(picked), "purge_ids": len(everything),
            "purge_with_derived_s": best["with"], "purge_plain_s": best["plain"]}


def run_consolidate_bench(seed_demo: Callable[[MemoryStore], object],
                          memories: int = 100_000, *, sources: int = PURGE_SOURCES,
                          settings: Settings | None = None,
                          embedder: Embedder | None = None,
                          folder: Path | None = None) -> ConsolidateBench:
    """Build the synthetic store and the demo store (`seed_demo` fills an empty store with
    the demo corpus and its query set: `memory_core.seeding.seed_from_export`, which the
    command line passes) in `folder` (kept) or a temporary folder, and time the four steps."""
    from tqdm import tqdm

    from memory_core.store.indexes import ensure_indexes, index_steps

    if memories < 100 or sources < 1:
        raise ValueError("--memories must be at least 100 and --sources at least 1")
    settings = settings or Settings.from_env()
    embedder = embedder or load_embedder(settings)
    try:  # load the model before anything is timed
        embedder.embed_one("load the model")
    except EmbedderUnavailableError:
        pass  # reflections are written pending, the impact preview says what it could not do
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        root = folder or Path(tmp)
        store = MemoryStore.open(str(root / "store"), embedder=embedder, settings=settings)
        write_s = _synthetic(store, memories)
        with tqdm(total=index_steps(), desc="indexing", unit="step", disable=None,
                  leave=False) as bar:
            index_s = ensure_indexes(store, progress=bar.update).total_seconds
        figures = time_candidates(store)
        demo_path = root / "demo" / "store"
        demo = MemoryStore.open(str(demo_path), embedder=embedder, settings=settings)
        seed_demo(demo)
        figures |= time_impact(demo)
        figures |= time_lineage_purge(demo_path, embedder, settings, sources)
        demo_memories = demo.count(Filter(status=("active", "archived", "superseded")))
    return ConsolidateBench(memories=memories, write_s=write_s, index_s=index_s,
                            demo_memories=demo_memories, **figures)

