"""`search()`: hybrid retrieval with an explanation on every hit (DESIGN.md section 3).

Vector and BM25 candidates under the filter, graph expansion from the best of them, RRF fusion
with weights and the convergence bonus, then optionally the decay composite and MMR. Every
`Hit` carries the parts of its score so that
`score == rrf * bonus * decay + mmr_adjustment`. Searching never changes access statistics;
`recall` is the call that records access.
"""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from memory_core.decay import DecayFactors, composite
from memory_core.errors import EmbedderUnavailableError
from memory_core.filters import Filter
from memory_core.graph import GraphHit, expand
from memory_core.records import Memory, utcnow
from memory_core.retrieval.config import RankingConfig, preset
from memory_core.retrieval.engines import (
    Candidate,
    bm25_candidates,
    ensure_fts_index,
    vector_candidates,
)
from memory_core.retrieval.fusion import rrf
from memory_core.retrieval.graph_candidates import GraphCandidate, resolve_graph_hits
from memory_core.retrieval.mmr import mmr
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class EngineEvidence:
    """What one engine said about a hit: its rank, raw score and RRF contribution."""

    rank: int
    score: float
    contribution: float


@dataclass(frozen=True)
class Hit:
    """One search result and why it ranks where it does."""

    memory: Memory
    rank: int
    engines: dict[str, EngineEvidence]
    rrf: float
    bonus: float
    decay: float
    mmr_adjustment: float
    score: float
    decay_factors: DecayFactors | None = None
    graph: GraphHit | None = None
    replaces: str | None = None  # id of the superseded memory this hit stands in for

    @property
    def fused(self) -> float:
        """RRF score times the convergence bonus."""
        return self.rrf * self.bonus

    def explain(self) -> dict[str, Any]:
        """The explanation as plain data (CLI `--json`, pages)."""
        out: dict[str, Any] = {
            "rank": self.rank,
            "score": self.score,
            "engines": {e: ev.__dict__ for e, ev in self.engines.items()},
            "rrf": self.rrf,
            "bonus": self.bonus,
            "decay": self.decay,
            "mmr_adjustment": self.mmr_adjustment,
        }
        if self.decay_factors is not None:
            out["decay_factors"] = self.decay_factors.__dict__
        if self.graph is not None:
            out["graph"] = {"seed": self.graph.seed_id, "hops": self.graph.hops,
                            "relations": list(self.graph.relations)}
        if self.replaces:
            out["replaces"] = self.replaces
            out["note"] = f"stands in for superseded memory {self.replaces}"
        return out


@dataclass
class SearchResults(list[Hit]):
    """The hits, best first, plus whether retrieval ran degraded and why."""

    query: str = ""
    config: RankingConfig = field(default_factory=RankingConfig)
    degraded: bool = False
    reasons: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0

    def __init__(self, hits: list[Hit] | None = None, **kwargs: Any) -> None:
        list.__init__(self, hits or [])
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.__dict__.setdefault("reasons", [])

    __hash__ = None  # type: ignore[assignment]


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """Threads for candidate queries, made once per process."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memlens-search")
        return _POOL


_WORDS = re.compile(r"\w+")


def _pattern_context(memory: Memory, query_words: set[str], flt: Filter) -> bool:
    projects = (flt.project,) if isinstance(flt.project, str) else tuple(flt.project or ())
    return memory.project in projects or bool(query_words & {t.lower() for t in memory.tags})


def _pending_reason(store: MemoryStore, flt: Filter) -> str | None:
    pending = store.count(replace(flt, embedding_status=["pending", "failed"]))
    if pending:
        return (f"{pending} matching memories have no vector yet, so only BM25 and the graph "
                f"can find them; run `memlens reembed`")
    return None


def search(
    store: MemoryStore,
    query: str,
    filter: Filter | None = None,
    config: RankingConfig | None = None,
    limit: int = 10,
    *,
    now: datetime | None = None,
) -> SearchResults:
    """The `limit` best memories for `query` under `filter`, each with its explanation."""
    started = time.perf_counter()
    cfg = config or preset("hybrid")
    flt = filter or Filter()
    now = now or utcnow()
    predicate = flt.to_predicate(store.tenant)
    m = max(cfg.candidates, limit)
    reasons: list[str] = []
    rankings: dict[str, list[Candidate]] = {}
    bm25_job: Future[list[Candidate]] | None = None
    bm25_off = None
    executor = _pool()

    def start_bm25() -> Future[list[Candidate]] | None:
        nonlocal bm25_off
        if ensure_fts_index(store):  # may write an index: stays on this thread
            return executor.submit(bm25_candidates, store, query, predicate, m)
        bm25_off = ("BM25 is off: the read-only store has no full-text index; run "
                    "`memlens index` with write access")
        return None

    # BM25 needs no query vector, so it runs while the query is embedded and searched
    # (LanceDB and onnxruntime release the GIL), as LanceDB's own hybrid search does.
    if cfg.use_bm25:
        bm25_job = start_bm25()
    if cfg.use_vector:
        pending_job = executor.submit(_pending_reason, store, flt)
        try:
            vector = store.embedder.embed_one(query)
        except EmbedderUnavailableError as exc:
            reasons.append(f"vector search is off, the embedder is unavailable: {exc}")
            if not cfg.use_bm25:  # fall back to BM25 (seed 003 ADR-009)
                bm25_job = start_bm25()
        else:
            rankings["vector"] = vector_candidates(store, vector.tolist(), predicate, m)
            pending = pending_job.result()
            if pending:
                reasons.append(pending)
    if bm25_job is not None:
        rankings["bm25"] = bm25_job.result()
    if bm25_off:
        reasons.append(bm25_off)
    weights = {"vector": cfg.weight_vector, "bm25": cfg.weight_bm25, "graph": cfg.weight_graph}
    ids_by_engine = {e: [c.doc_id for c in cands] for e, cands in rankings.items()}
    graph_by_id: dict[str, GraphCandidate] = {}
    if cfg.use_graph and ids_by_engine:
        seeds = [f.doc_id for f in rrf(ids_by_engine, weights, k=cfg.rrf_k,
                                       convergence_bonus=cfg.convergence_bonus)]
        adjacency = store.adjacency()
        reached = expand(seeds[: cfg.graph_seeds], adjacency, now, hops=cfg.graph_hops,
                         fanout=cfg.graph_fanout, beam=cfg.graph_beam)
        graph = resolve_graph_hits(store, reached, flt, adjacency)
        graph_by_id = {g.doc_id: g for g in graph}
        rankings["graph"] = [Candidate(g.doc_id, r, g.hit.score) for r, g in
                             enumerate(graph, 1)]
        ids_by_engine["graph"] = [g.doc_id for g in graph]
    fused = rrf(ids_by_engine, weights, k=cfg.rrf_k, convergence_bonus=cfg.convergence_bonus)
    pool = fused[: max(limit * 3, limit + 20)] if (cfg.use_decay or cfg.use_mmr) else fused[:limit]
    memories = store.get_many([f.doc_id for f in pool], with_vectors=cfg.use_mmr)
    evidence = {e: {c.doc_id: c for c in cands} for e, cands in rankings.items()}
    words = {w.lower() for w in _WORDS.findall(query)}
    scored = []
    for f in pool:
        memory = memories.get(f.doc_id)
        if memory is None:
            continue
        factors = (composite(memory, now, params=cfg.decay,
                             pattern_match=_pattern_context(memory, words, flt))
                   if cfg.use_decay else None)
        scored.append((f, memory, factors, f.score * (factors.composite if factors else 1.0)))
    scored.sort(key=lambda s: (-s[3], s[0].doc_id))
    adjust: dict[str, float] = {}
    if cfg.use_mmr:
        picks = mmr({f.doc_id: value for f, _, _, value in scored},
                    {f.doc_id: mem.vector for f, mem, _, _ in scored}, lam=cfg.mmr_lambda,
                    limit=limit)
        order = {p.doc_id: i for i, p in enumerate(picks)}
        adjust = {p.doc_id: p.objective - p.relevance for p in picks}
        scored = sorted((s for s in scored if s[0].doc_id in order),
                        key=lambda s: order[s[0].doc_id])
    hits = []
    for rank, (f, memory, factors, value) in enumerate(scored[:limit], 1):
        engines = {e: EngineEvidence(evidence[e][f.doc_id].rank, evidence[e][f.doc_id].score,
                                     f.contributions[e]) for e in f.ranks}
        delta = adjust.get(f.doc_id, 0.0)
        g = graph_by_id.get(f.doc_id)
        hits.append(Hit(
            memory=replace(memory, vector=None), rank=rank, engines=engines, rrf=f.rrf,
            bonus=f.bonus, decay=factors.composite if factors else 1.0, mmr_adjustment=delta,
            score=value + delta, decay_factors=factors, graph=g.hit if g else None,
            replaces=g.replaces if g else None,
        ))
    return SearchResults(hits, query=query, config=cfg, degraded=bool(reasons),
                         reasons=reasons, elapsed_ms=(time.perf_counter() - started) * 1000)

