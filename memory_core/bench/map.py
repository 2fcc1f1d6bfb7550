"""`memlens bench map`: the embedding map's costs on a synthetic store of N memories.

Targets on a 2-core machine at 50,000 memories: the map computed cold
<= 90 s (`project` in a fresh Python process with this machine's numba cache warm, so
umap-learn loads its compiled code; the cache entry written included), the cached map read
back <= 2 s (what reopening the Map page costs), HDBSCAN clusters of the layout with their
labels <= 10 s (`cluster_layout`) and the near-duplicate pairs at cosine >= 0.95 <= 10 s
(`near_duplicates`). A machine's very first map (a fresh process whose numba cache is an
empty folder, so umap-learn and pynndescent compile) is reported on its own line, without
a target: `memlens init` and `serve` compile in the background before it (see
memory_core/projection/warm.py). The store is the search
benchmark's (demo texts recombined, vectors drawn around 256 topic centroids on the unit
sphere in the model's dimension, written as Arrow batches, nothing embedded); about 95% of
its memories are active, and the map shows those. `--sample N` also times a map fitted on
N of them with the rest placed by `transform` (warm: in the first fresh process, after the
cold map).
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memory_core.bench.targets import target_figures, target_line
from memory_core.embedding import Embedder, load_embedder
from memory_core.model.config import Settings
from memory_core.store import MemoryStore

COLD_TARGET_S = 90.0
CACHED_TARGET_S = 2.0
CLUSTERS_TARGET_S = 10.0
DUPLICATES_TARGET_S = 10.0
DUPLICATE_THRESHOLD = 0.95
#: Timed cached reloads (the median is reported).
REPEATS = 3
#: What a figure needs that this install lacks.
NEEDS_CLUSTERS = "needs memory_core.projection.cluster_layout"
NEEDS_DUPLICATES = "needs memory_core.projection.near_duplicates"


@dataclass(frozen=True)
class MapBench:
    """Figures of one map benchmark run (seconds unless named otherwise); a figure this
    install cannot compute is None, with the reason in `missing`."""

    memories: int
    active: int
    dimension: int
    write_s: float
    cold_s: float
    #: CPU seconds of the cold map (all threads: the neighbour search uses both cores, the
    #: layout one). Shared cores make `cold_s` the larger.
    cold_cpu_s: float
    #: Seconds each stage of the cold `project` took ("loading vectors", "finding
    #: neighbours", "fitting", "saving the map to the cache").
    cold_stages: dict[str, float]
    entry_mb: float
    cached_s: float
    #: The same map in a fresh process whose numba cache is empty (a new machine), no map
    #: cache; None when not run (`first_map=False`).
    first_s: float | None = None
    first_cpu_s: float | None = None
    first_stages: dict[str, float] = field(default_factory=dict)
    sample: int | None = None
    sampled_s: float | None = None
    sampled_cpu_s: float | None = None
    clusters_s: float | None = None
    clusters: int | None = None
    duplicates_s: float | None = None
    duplicate_pairs: int | None = None
    missing: tuple[str, ...] = ()
    #: The machine's load average (1, 5, 15 min) when the bench started: cores are shared.
    load: tuple[float, ...] = field(default_factory=tuple)

    def ratios(self) -> dict[str, float]:
        """Each figure measured over its target (<= 1 meets it)."""
        out = {"cold": self.cold_s / COLD_TARGET_S, "cached": self.cached_s / CACHED_TARGET_S}
        if self.clusters_s is not None:
            out["clusters"] = self.clusters_s / CLUSTERS_TARGET_S
        if self.duplicates_s is not None:
            out["duplicates"] = self.duplicates_s / DUPLICATES_TARGET_S
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every figure, its ratio to the target and whether it meets it, as plain data."""
        targets = {"cold": COLD_TARGET_S, "cached": CACHED_TARGET_S,
                   "clusters": CLUSTERS_TARGET_S, "duplicates": DUPLICATES_TARGET_S}
        ratios = self.ratios()
        return {**asdict(self), **target_figures(
            {k: v for k, v in targets.items() if k in ratios}, ratios)}

    def lines(self) -> list[str]:
        """The figures as text lines, each with its target and ratio."""
        ratios = self.ratios()

        def line(label: str, seconds: float | None, key: str, target: float,
                 extra: str = "", missing: str = "") -> str:
            if seconds is None:
                return f"{label:<36}not run: {missing}"
            return target_line(label, seconds, ratios[key], target, extra=extra, width=36)

        stages = ", ".join(f"{k} {v:.1f} s" for k, v in self.cold_stages.items())
        load = "/".join(f"{x:.1f}" for x in self.load)
        out = [
            f"store: {self.memories} memories ({self.active} active, {self.dimension}-d "
            f"vectors); written in {self.write_s:.1f} s; load average {load} at the start",
            line("map cold (fresh process)", self.cold_s, "cold", COLD_TARGET_S,
                 f"  {self.cold_cpu_s:.1f} s of CPU"),
            f"  stages: {stages}; cache entry {self.entry_mb:.0f} MB",
            line("map cached (reopened)", self.cached_s, "cached", CACHED_TARGET_S,
                 f"  median of {REPEATS}"),
        ]
        if self.first_s is not None:
            compiling = sum(v for k, v in self.first_stages.items() if "engine" in k)
            out.append(f"{'first map on a new machine':<36}{self.first_s:7.2f} s  (numba "
                       f"cache empty, no target)  {self.first_cpu_s or 0.0:.1f} s of CPU; "
                       f"waiting for the compile {compiling:.1f} s")
        if self.sampled_s is not None:
            out.append(f"{f'map fitted on {self.sample}, rest placed':<36}"
                       f"{self.sampled_s:7.2f} s  (warm, no target)  "
                       f"{self.sampled_cpu_s or 0.0:.1f} s of CPU")
        out += [
            line("HDBSCAN clusters + labels", self.clusters_s, "clusters", CLUSTERS_TARGET_S,
                 f"  {self.clusters} clusters", NEEDS_CLUSTERS),
            line(f"near-duplicates (cosine >= {DUPLICATE_THRESHOLD})", self.duplicates_s,
                 "duplicates", DUPLICATES_TARGET_S, f"  {self.duplicate_pairs} pairs",
                 NEEDS_DUPLICATES),
        ]
        return out


def _engine_function(name: str) -> Callable[..., Any] | None:
    """`memory_core.projection.<name>` when this install has it, else None."""
    found = getattr(importlib.import_module("memory_core.projection"), name, None)
    return found if callable(found) else None


def child_main() -> None:
    """The fresh process of the cold map: `project` on the store named in argv, timed by
    stage, then (with a sample size) a sampled map; prints the figures as JSON."""
    from memory_core.embedding.base import UnavailableEmbedder
    from memory_core.projection import MapParams, ProjectionCache, project

    uri, cache_dir, model_id, dimension, sample = sys.argv[1:6]
    store = MemoryStore.open(uri, read_only=True, embedder=UnavailableEmbedder(
        model_id, int(dimension), "the map bench embeds nothing"))
    marks: dict[str, float] = {}
    start = time.perf_counter()

    def progress(stage: str, fraction: float) -> None:
        marks.setdefault(stage, time.perf_counter() - start)

    cpu = time.process_time()
    project(store, cache=ProjectionCache(cache_dir) if cache_dir else False,
            progress=progress)
    cold = time.perf_counter() - start
    out: dict[str, Any] = {"cold_s": cold, "cold_cpu_s": time.process_time() - cpu,
                           "marks": marks}
    if int(sample):
        begin, cpu = time.perf_counter(), time.process_time()
        project(store, params=MapParams(sample=int(sample)), cache=False)
        out["sampled_s"] = time.perf_counter() - begin
        out["sampled_cpu_s"] = time.process_time() - cpu
    print(json.dumps(out))


def _stages(marks: dict[str, float], total: float) -> dict[str, float]:
    """Seconds per stage of `project`, from the times each began (and the total)."""
    ordered = sorted((t, s) for s, t in marks.items())
    ends = [t for t, _ in ordered[1:]] + [total]
    return {stage: end - begin for (begin, stage), end in zip(ordered, ends, strict=True)
            if stage not in ("reading the cached map", "done")}


def fresh_map(store: MemoryStore, cache_dir: Path | None, sample: int | None,
              numba_cache: Path | None = None) -> dict[str, Any]:
    """Run `child_main` in a fresh Python, writing the map to `cache_dir` (None: no map
    cache), with `numba_cache` as its NUMBA_CACHE_DIR (None: this machine's)."""
    env = dict(os.environ)
    if numba_cache is not None:
        env["NUMBA_CACHE_DIR"] = str(numba_cache)
    code = "from memory_core.bench.map import child_main; child_main()"
    done = subprocess.run(
        [sys.executable, "-c", code, store.uri, str(cache_dir or ""), store.model_id,
         str(store.dimension), str(sample or 0)],
        env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the map process failed: {done.stderr.strip()[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def time_cached(store: MemoryStore, cache_dir: Path) -> tuple[float, Any]:
    """The median time of `REPEATS` cached reads of the map, and the map."""
    from memory_core.projection import ProjectionCache, project

    times, result = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = project(store, cache=ProjectionCache(cache_dir))
        times.append(time.perf_counter() - start)
    if result is None or not result.from_cache:
        raise RuntimeError("the map was not read from the cache the cold run wrote")
    return statistics.median(times), result


def time_engines(store: MemoryStore, frame: Any) -> dict[str, Any]:
    """HDBSCAN + labels on the layout and the near-duplicates, where this install has
    them."""
    out: dict[str, Any] = {"missing": []}
    cluster_layout = _engine_function("cluster_layout")
    if cluster_layout is None:
        out["missing"].append(NEEDS_CLUSTERS)
    else:
        start = time.perf_counter()
        clusters = cluster_layout(frame)
        out["clusters_s"] = time.perf_counter() - start
        out["clusters"] = int((clusters.table["cluster"] >= 0).sum())
    near_duplicates = _engine_function("near_duplicates")
    if near_duplicates is None:
        out["missing"].append(NEEDS_DUPLICATES)
    else:
        start = time.perf_counter()
        pairs = near_duplicates(store, threshold=DUPLICATE_THRESHOLD)
        out["duplicates_s"] = time.perf_counter() - start
        out["duplicate_pairs"] = pairs.height
    out["missing"] = tuple(out["missing"])
    return out


def warm_machine() -> None:
    """Compile the map engine into this machine's numba cache, as `memlens init` does in
    the background (here in the foreground; at once when it is compiled already)."""
    done = subprocess.run([sys.executable, "-m", "memory_core.projection.warm"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"compiling the map engine failed: {done.stderr.strip()[-2000:]}")


def run_map_bench(memories: int = 50_000, *, sample: int | None = None,
                  embedder: Embedder | None = None, settings: Settings | None = None,
                  folder: Path | None = None, first_map: bool = True) -> MapBench:
    """Build the synthetic store (in `folder`, kept, or a temporary folder) and time the
    map cold (a fresh process, the machine's numba cache warm), cached, its clusters and
    its near-duplicates, and (`first_map`) a machine's first map (a fresh process, an empty
    numba cache). Nothing is embedded: `embedder` (default: the configured one) only sets
    the vectors' dimension."""
    if memories < 3:
        raise ValueError("--n must be at least 3 (a map needs 3 memories)")
    from tqdm import tqdm

    from memory_core.bench.decay import build_store

    load = os.getloadavg()
    settings = settings or Settings.from_env()
    embedder = embedder or load_embedder(settings)
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        root = folder or Path(tmp)
        store = MemoryStore.open(str(root / "store"), embedder=embedder, read_only=False,
                                 settings=settings)  # a scratch store, whatever READ_ONLY
        start = time.perf_counter()
        with tqdm(total=memories, desc="writing", unit="memory", disable=None,
                  leave=False) as bar:
            active = build_store(store, memories, 0, progress=bar.update)
        write_s = time.perf_counter() - start
        cache_dir = root / "maps"
        first: dict[str, Any] = {}
        if first_map:
            with tempfile.TemporaryDirectory(prefix="memlens-numba-") as empty:
                first = fresh_map(store, None, None, Path(empty))
        warm_machine()
        cold = fresh_map(store, cache_dir, sample)
        cached_s, result = time_cached(store, cache_dir)
        entry = cache_dir / result.key
        entry_mb = sum(p.stat().st_size for p in entry.iterdir()) / 2**20
        engines = time_engines(store, result.frame)
    return MapBench(memories=memories, active=active, dimension=store.dimension,
                    write_s=write_s, cold_s=cold["cold_s"], cold_cpu_s=cold["cold_cpu_s"],
                    cold_stages=_stages(cold["marks"], cold["cold_s"]), entry_mb=entry_mb,
                    cached_s=cached_s, first_s=first.get("cold_s"),
                    first_cpu_s=first.get("cold_cpu_s"),
                    first_stages=_stages(first["marks"], first["cold_s"]) if first else {},
                    sample=sample, sampled_s=cold.get("sampled_s"),
                    sampled_cpu_s=cold.get("sampled_cpu_s"),
                    load=tuple(round(x, 2) for x in load), **engines)
