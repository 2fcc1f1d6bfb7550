"""`memlens bench graph`: the causal-graph explorer's costs on synthetic stores.

Targets on a 2-core machine: the neighbourhood of a memory with 1,000 nodes and
3,000 edges and its HTML (`neighbourhood_html`, the Graph page's drawing) built in <= 1 s;
`graph_health` on 100,000 memories with 10,000 edges <= 2 s; `lineage` at depth 3 (what
`memlens why` walks) on that store <= 100 ms p95.
Everything `memlens why` reads (the lineage, the supersession chain and the contradictions
touching the memory) is timed too, for the same memories, and held to the same target.

Both stores hold the search benchmark's memories (demo texts recombined, nothing embedded).
The large one has its edges too (mostly within a topic, relations and strengths drawn from the
demo corpus). The small one is wired so that three hops from its first memory reach every
other (up to 1,111 memories): a tree of fan-out 10 rooted there, then random edges up to the
count asked, so the neighbourhood is the whole store (every status included). The large one
is indexed as `memlens index` leaves it (scalar and full-text indexes), but for the vector
index, which no graph function reads.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memory_core.bench.search import Latency, synthetic_batches, synthetic_edges
from memory_core.embedding import Embedder, load_embedder
from memory_core.model.config import Settings
from memory_core.model.records import Edge
from memory_core.store import MemoryStore

NEIGHBOURHOOD_TARGET_S = 1.0
HEALTH_TARGET_S = 2.0
WHY_P95_TARGET_MS = 100.0
#: Fan-out of the small store's tree: three hops from the root reach 1 + 10 + 100 + 1,000.
FANOUT = 10
#: How often the neighbourhood (and its HTML) is built; the median is held to the target.
REPEATS = 5
#: Lineage calls made before the timed ones (the first builds the store's adjacency).
WARMUP = 5

Progress = Callable[[int], None]


@dataclass(frozen=True)
class GraphBench:
    """Figures of one graph benchmark run (seconds unless named otherwise)."""

    #: The small store and the neighbourhood of its first memory (3 hops, no cap reached).
    nodes: int
    node_edges: int
    neighbourhood_nodes: int
    neighbourhood_edges: int
    neighbourhood_s: float
    #: `memory_core.viz.graph_html.neighbourhood_html` of it: the Graph page's drawing.
    html_s: float
    html_chars: int
    #: The large store.
    memories: int
    edges: int
    write_s: float
    index_s: float
    health_s: float
    health_again_s: float
    findings: dict[str, int]
    why_calls: int
    why_first_ms: float
    why: Latency
    #: `lineage` + `supersession_chain` + `contradictions` of the memory: all `why` reads.
    why_all: Latency

    @property
    def page_s(self) -> float:
        """Neighbourhood plus HTML (the median of each over `REPEATS` builds)."""
        return self.neighbourhood_s + self.html_s

    def ratios(self) -> dict[str, float]:
        """Each figure over its target (<= 1 meets it)."""
        return {"neighbourhood_html": self.page_s / NEIGHBOURHOOD_TARGET_S,
                "health": self.health_s / HEALTH_TARGET_S,
                "why_p95": self.why.p95_ms / WHY_P95_TARGET_MS,
                "why_all_p95": self.why_all.p95_ms / WHY_P95_TARGET_MS}

    def to_dict(self) -> dict[str, Any]:
        """Every figure, its target and ratio and whether it meets it, as plain data."""
        ratios = self.ratios()
        return {**asdict(self), "page_s": self.page_s,
                "targets": {"neighbourhood_html_s": NEIGHBOURHOOD_TARGET_S,
                            "health_s": HEALTH_TARGET_S, "why_p95_ms": WHY_P95_TARGET_MS},
                "ratios": ratios, "within_target": {k: r <= 1.0 for k, r in ratios.items()}}

    def lines(self) -> list[str]:
        """The figures as text lines, each target with its ratio."""
        ratios = self.ratios()

        def verdict(key: str) -> str:
            return f"ratio {ratios[key]:.2f}) {'PASS' if ratios[key] <= 1.0 else 'FAIL'}"

        found = ", ".join(f"{kind} {n}" for kind, n in self.findings.items())
        return [
            f"small store: {self.nodes} memories, {self.node_edges} edges; neighbourhood of "
            f"one memory, 3 hops: {self.neighbourhood_nodes} nodes, "
            f"{self.neighbourhood_edges} edges",
            f"{'neighbourhood + HTML':<28}{self.page_s:8.3f} s  (target <= "
            f"{NEIGHBOURHOOD_TARGET_S:.0f} s, {verdict('neighbourhood_html')}",
            f"{'  of which neighbourhood':<28}{self.neighbourhood_s:8.3f} s; HTML "
            f"{self.html_s:.3f} s ({self.html_chars} characters; medians of {REPEATS})",
            f"large store: {self.memories} memories, {self.edges} edges; written in "
            f"{self.write_s:.1f} s, indexed in {self.index_s:.1f} s",
            f"{'graph_health':<28}{self.health_s:8.3f} s  (target <= {HEALTH_TARGET_S:.0f} s, "
            f"{verdict('health')}; again {self.health_again_s:.3f} s",
            f"  findings: {found}",
            f"{'why (lineage, depth 3)':<28}p95 {self.why.p95_ms:6.1f} ms  (target <= "
            f"{WHY_P95_TARGET_MS:.0f} ms, {verdict('why_p95')}",
            f"  p50 {self.why.p50_ms:.1f} ms, p99 {self.why.p99_ms:.1f} ms over "
            f"{self.why_calls} memories with edges; first call {self.why_first_ms:.0f} ms",
            f"{'  + chain + contradictions':<28}p95 {self.why_all.p95_ms:6.1f} ms  (target <= "
            f"{WHY_P95_TARGET_MS:.0f} ms, {verdict('why_all_p95')}  (all `memlens why` reads)",
        ]


# -- the stores ----------------------------------------------------------------------------

def _write_memories(store: MemoryStore, n: int, progress: Progress | None,
                    seed: int) -> tuple[list[str], list[int]]:
    """`n` synthetic memories appended to `store`: (ids, topics) in order."""
    ids: list[str] = []
    topics: list[int] = []
    for table, batch_topics in synthetic_batches(store, n, seed=seed):
        store.bulk.append("memory", table)
        ids.extend(table["id"].to_pylist())
        topics.extend(int(t) for t in batch_topics)
        if progress is not None:
            progress(table.num_rows)
    return ids, topics


def wired_edges(ids: list[str], count: int, *, tenant: str, seed: int = 0) -> list[Edge]:
    """`count` edges over `ids` (at least `len(ids) - 1`): a tree of fan-out `FANOUT` from
    `ids[0]`, then random pairs not yet linked, each way round at random, with the relation,
    strength and decay of a random demo edge."""
    from memory_core.bench.demo_records import demo_records

    if count < len(ids) - 1:
        raise ValueError(f"{count} edges cannot reach {len(ids)} memories: give at least "
                         f"{len(ids) - 1}")
    rng = random.Random(seed)
    demo = list(demo_records().edges)
    pairs = [((i - 1) // FANOUT, i) for i in range(1, len(ids))]
    seen = {frozenset(p) for p in pairs}
    while len(pairs) < min(count, len(ids) * (len(ids) - 1) // 2):
        a, b = rng.sample(range(len(ids)), 2)
        if frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            pairs.append((a, b))
    edges = []
    for a, b in pairs:
        source, target = (a, b) if rng.random() < 0.5 else (b, a)
        like = rng.choice(demo)
        edges.append(Edge.new(ids[source], ids[target], like.relation, tenant=tenant,
                              strength=like.strength, decay_rate=like.decay_rate,
                              created_at=like.created_at))
    return edges


# -- the timings ---------------------------------------------------------------------------

def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def time_neighbourhood(store: MemoryStore, focus: str, limit: int) -> dict[str, Any]:
    """Build the neighbourhood of `focus` (3 hops, every status, up to `limit` nodes) and its
    HTML `REPEATS` times: the median seconds of each and the sizes."""
    from memory_core.causal import neighbourhood
    from memory_core.viz.graph_html import neighbourhood_html

    built: list[float] = []
    rendered: list[float] = []
    html = ""
    for _ in range(REPEATS):
        start = time.perf_counter()
        found = neighbourhood(store, [focus], hops=3, limit=limit, include_inactive=True)
        built.append(time.perf_counter() - start)
        start = time.perf_counter()
        html = neighbourhood_html(found)
        rendered.append(time.perf_counter() - start)
    return {"neighbourhood_nodes": len(found.nodes), "neighbourhood_edges": len(found.edges),
            "neighbourhood_s": _median(built), "html_s": _median(rendered),
            "html_chars": len(html)}


def time_health_and_why(store: MemoryStore, calls: int, *, seed: int = 0,
                        progress: Progress | None = None) -> dict[str, Any]:
    """`graph_health` twice, then for `calls` memories drawn from the edges' ends
    `lineage(depth=3)`, and it with the memory's supersession chain and contradictions (after
    `WARMUP` untimed memories; the very first lineage is reported apart)."""
    from memory_core.causal import contradictions, graph_health, lineage, supersession_chain
    from memory_core.model.filters import Filter
    from memory_core.model.schema import STATUSES

    start = time.perf_counter()
    health = graph_health(store)
    health_s = time.perf_counter() - start
    start = time.perf_counter()
    graph_health(store)
    again_s = time.perf_counter() - start
    ends = sorted({x for pair in store.edges.endpoints() for x in pair})
    if not ends:
        raise ValueError("the store has no edges: nothing for `why` to walk")
    rng = random.Random(seed)
    picks = [rng.choice(ends) for _ in range(WARMUP + calls)]
    walks, reads = [], []
    for memory_id in picks:
        start = time.perf_counter()
        lineage(store, memory_id, depth=3)
        walked = time.perf_counter()
        supersession_chain(store, memory_id)
        contradictions(store, Filter(ids=[memory_id], status=STATUSES))
        walks.append(walked - start)
        reads.append(time.perf_counter() - start)
        if progress is not None:
            progress(1)
    return {"health_s": health_s, "health_again_s": again_s,
            "findings": {f.kind: f.count for f in health.findings}, "why_calls": calls,
            "why_first_ms": walks[0] * 1000.0, "why": Latency.of(walks[WARMUP:]),
            "why_all": Latency.of(reads[WARMUP:])}


@contextmanager
def _bar(label: str, total: int, unit: str) -> Iterator[Progress]:
    from tqdm import tqdm

    with tqdm(total=total, desc=label, unit=unit, disable=None, leave=False) as bar:
        yield bar.update


def check_sizes(memories: int, edges: int, nodes: int, node_edges: int, calls: int) -> None:
    """`ValueError` unless the sizes make the stores the benchmark describes."""
    if min(memories, nodes) < 2 or min(edges, calls) < 1:
        raise ValueError("--memories and --nodes must be at least 2, --edges and --calls at "
                         "least 1")
    if node_edges < nodes - 1:
        raise ValueError(f"--node-edges must be at least --nodes - 1 ({nodes - 1}): a tree "
                         f"links every node")
    if node_edges > nodes * (nodes - 1) // 2:
        raise ValueError(f"--node-edges must be at most {nodes * (nodes - 1) // 2}: one edge "
                         f"per pair of {nodes} memories")


def run_graph_bench(memories: int = 100_000, *, edges: int = 10_000, nodes: int = 1000,
                    node_edges: int = 3000, calls: int = 200, embedder: Embedder | None = None,
                    settings: Settings | None = None, folder: Path | None = None
                    ) -> GraphBench:
    """Build both stores (in `folder`, kept, or a temporary folder) and time the explorer.
    Nothing is embedded: `embedder` (default: the configured model, never loaded) only sets
    the stores' vector size."""
    check_sizes(memories, edges, nodes, node_edges, calls)
    from memory_core.store.indexes import ensure_indexes, index_steps

    settings = settings or Settings.from_env()
    embedder = embedder or load_embedder(settings)
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        root = folder or Path(tmp)

        def open_store(name: str) -> MemoryStore:  # scratch stores, whatever MEMLENS_READ_ONLY
            return MemoryStore.open(str(root / name), embedder=embedder, read_only=False,
                                    settings=settings)

        small = open_store("small")
        with _bar("writing the small store", nodes, "memory") as advance:
            ids, _ = _write_memories(small, nodes, advance, seed=1)
        small_edges = small.edges.add(wired_edges(ids, node_edges, tenant=small.tenant),
                                      check_endpoints=False, reason="bench graph")
        around = time_neighbourhood(small, ids[0], limit=nodes)
        large = open_store("large")
        start = time.perf_counter()
        with _bar("writing the large store", memories, "memory") as advance:
            ids, topics = _write_memories(large, memories, advance, seed=0)
        written = large.edges.add(synthetic_edges(ids, topics, edges, tenant=large.tenant),
                                  check_endpoints=False, reason="bench graph")
        write_s = time.perf_counter() - start
        with _bar("indexing", index_steps(), "step") as advance:
            index_s = ensure_indexes(large, vector_threshold=memories + 1,
                                     progress=advance).total_seconds
        with _bar("timing why", WARMUP + calls, "call") as advance:
            timed = time_health_and_why(large, calls, progress=advance)
    return GraphBench(nodes=nodes, node_edges=small_edges, memories=memories, edges=written,
                      write_s=write_s, index_s=index_s, **around, **timed)
