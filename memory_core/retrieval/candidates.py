"""Stage 1 of `search()`: each engine's candidates under the filter, and why any engine was off.

Vector top-m and BM25 top-m run under the same filter; BM25 needs no query vector, so it runs
on a thread while the query is embedded and searched (LanceDB and onnxruntime release the
GIL), as LanceDB's own hybrid search does; with the store's speed-up off
(`store.queries.accelerated`) they run one after the other on the caller's thread
(`search_threads.py`). Each candidate is then scored with its session neighbours
(`context.py`), and the graph expands from the best fused seeds (PathRAG caps,
docs/design/retrieval.md). Degraded modes are reasons, never errors: no
embedder means BM25 (ADR-009 in docs/design/seeds.md), memories without a vector are
reachable only by BM25 and the graph, and a read-only store without a full-text index has no
BM25.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import datetime

from memory_core.causal.expansion import expand
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.context import ContextLift, with_context
from memory_core.retrieval.engines import (
    Candidate,
    bm25_candidates,
    vector_candidates,
)
from memory_core.retrieval.fusion import fuse
from memory_core.retrieval.graph_candidates import GraphCandidate, resolve_graph_hits
from memory_core.retrieval.search_threads import search_threads
from memory_core.store import MemoryStore

BM25_OFF = ("BM25 is off: the read-only store has no full-text index; run `memlens index` "
            "with write access")


@dataclass(frozen=True)
class Candidates:
    """Each engine's ranking (best first), the graph hits by memory id, and degraded reasons.

    `rankings` keeps the engines in the order they ran (vector, bm25, graph): fusion sums
    contributions in that order and explanations list engines in it.
    """

    rankings: Mapping[str, tuple[Candidate, ...]]
    graph: Mapping[str, GraphCandidate] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    #: engine -> memory id -> what session context added to that engine's score
    context: Mapping[str, Mapping[str, ContextLift]] = field(default_factory=dict)
    query_vector: tuple[float, ...] | None = None

    def ids(self) -> dict[str, list[str]]:
        """engine -> ranked memory ids, what fusion takes."""
        return {e: [c.doc_id for c in ranking] for e, ranking in self.rankings.items()}

    def row_ids(self) -> dict[str, int]:
        """memory id -> LanceDB row id, for the candidates whose query returned one."""
        return {c.doc_id: c.row_id for ranking in self.rankings.values() for c in ranking
                if c.row_id is not None}

    def by_id(self) -> dict[str, dict[str, Candidate]]:
        """engine -> memory id -> that engine's candidate, for explanations."""
        return {e: {c.doc_id: c for c in ranking} for e, ranking in self.rankings.items()}


#: What a memory the vector engine cannot see has as its embedding status.
UNEMBEDDED = ("pending", "failed")


def _pending_reason(store: MemoryStore, flt: Filter) -> str | None:
    """Why some matching memories are out of the vector engine's reach, if any are.

    The tenant-wide count (any status) is asked first: it is the same for every query until
    the table changes, so it is counted once per table version, and a store whose memories
    all have vectors (the common case) never counts under each query's filter."""
    anywhere = Filter(tenant=flt.tenant, status=STATUSES, embedding_status=UNEMBEDDED)
    if not store.count(anywhere):
        return None
    pending = store.count(replace(flt, embedding_status=UNEMBEDDED))
    if pending:
        return (f"{pending} matching memories have no vector yet, so only BM25 and the graph "
                f"can find them; run `memlens reembed`")
    return None


def _start_bm25(store: MemoryStore, query: str, predicate: str, m: int, *,
                with_content: bool = False, with_vector: bool = False
                ) -> Future[list[Candidate]] | str:
    """BM25 running on the search threads (or already run, with them off), or why it
    cannot run."""
    if not store.fts.ensure():  # may write an index: stays on this thread
        return BM25_OFF
    return search_threads(enabled=store.queries.accelerated).submit(
        bm25_candidates, store, query, predicate, m, with_content=with_content,
        with_vector=with_vector)


@dataclass(frozen=True)
class _VectorOutcome:
    """The vector engine's ranking, or None when the embedder is unavailable; its reasons."""

    ranking: tuple[Candidate, ...] | None
    reasons: tuple[str, ...]
    vector: tuple[float, ...] | None = None


def _vector_engine(store: MemoryStore, query: str, flt: Filter, predicate: str, m: int,
                   *, with_content: bool = False) -> _VectorOutcome:
    """Embed the query and rank by cosine; count the memories it cannot see meanwhile."""
    threads = search_threads(enabled=store.queries.accelerated)
    pending_job = threads.submit(_pending_reason, store, flt)
    try:
        vector = store.embedder.embed_one(query)
    except EmbedderUnavailableError as exc:
        return _VectorOutcome(None, (f"vector search is off, the embedder is unavailable: "
                                     f"{exc}",))
    values = tuple(float(x) for x in vector.tolist())
    ranking = tuple(vector_candidates(store, list(values), predicate, m,
                                      with_content=with_content, flt=flt))
    pending = pending_job.result()
    return _VectorOutcome(ranking, (pending,) if pending else (), values)


def engine_candidates(store: MemoryStore, query: str, flt: Filter, config: RankingConfig,
                      m: int) -> Candidates:
    """Vector and BM25 top-`m` under `flt`, as `config` turns them on (no graph yet).

    With session context on, the queries also return what context scores with: the
    contents (BM25 over windows) and, from BM25, the vectors (the vector engine's cosine of
    BM25's candidates); taking them with the query costs about a millisecond, reading them
    again by row id about ten."""
    predicate = flt.to_predicate(store.tenant)
    context = config.context_window > 0 and config.context_weight > 0
    # rows held in memory (`store.queries.held_columns`) are read there: the queries return less
    held = store.queries.held_columns() if context else frozenset()
    texts = (context and config.use_bm25 and config.bm25_context == "window"
             and "content" not in held)
    bm25 = _start_bm25(store, query, predicate, m, with_content=texts,
                       with_vector=context and config.use_vector and "vector" not in held
                       ) if config.use_bm25 else None
    rankings: dict[str, tuple[Candidate, ...]] = {}
    reasons: list[str] = []
    vector: tuple[float, ...] | None = None
    if config.use_vector:
        outcome = _vector_engine(store, query, flt, predicate, m, with_content=texts)
        reasons.extend(outcome.reasons)
        vector = outcome.vector
        if outcome.ranking is not None:
            rankings["vector"] = outcome.ranking
        elif not config.use_bm25:  # no query vector: fall back to BM25 (ADR-009)
            bm25 = _start_bm25(store, query, predicate, m)
    ranked = _bm25_ranking(bm25) if isinstance(bm25, Future) else bm25
    if isinstance(ranked, tuple):
        rankings["bm25"] = ranked
    elif ranked is not None:
        reasons.append(ranked)
        if ranked != BM25_OFF and not config.use_vector:  # the other engine takes over
            outcome = _vector_engine(store, query, flt, predicate, m)
            reasons.extend(outcome.reasons)
            if outcome.ranking is not None:
                rankings["vector"] = outcome.ranking
    return Candidates(rankings, reasons=tuple(reasons), query_vector=vector)


def _bm25_ranking(job: Future[list[Candidate]]) -> tuple[Candidate, ...] | str:
    """BM25's ranking, or why it is off: a full-text index whose files are missing or
    unreadable degrades search as a missing model does (`memlens check --repair` rebuilds
    it); any other damage is the store's and raises."""
    from memory_core.store.files.damage import store_damage

    try:
        return tuple(job.result())
    except (OSError, ValueError, RuntimeError) as exc:
        damage = store_damage(exc)
        if damage is None:
            raise
        if not damage.file.startswith("_indices/"):
            raise damage from exc
        return (f"BM25 is off: the full-text index is damaged ({damage.file.split('/')[1]} "
                f"does not read); run `memlens check --repair` to rebuild it")


def context_candidates(store: MemoryStore, found: Candidates, flt: Filter,
                       config: RankingConfig, query: str | None = None) -> Candidates:
    """`found` with session context applied to the vector and BM25 rankings (context.py)."""
    if config.context_window <= 0 or config.context_weight <= 0:
        return found
    # what a candidate's neighbours share with it (tenant, session, type) needs no check
    shared = replace(flt, tenant=None, status=None, session_id=None, memory_type=None)
    rankings, lifts = with_context(store, found.rankings, flt,
                                   window=config.context_window, weight=config.context_weight,
                                   query_vector=found.query_vector,
                                   statuses=flt.statuses() if shared == Filter() else None,
                                   query=query, bm25_context=config.bm25_context)
    return replace(found, rankings=rankings, context=lifts)


def graph_candidates(store: MemoryStore, seeds: Sequence[str], flt: Filter,
                     config: RankingConfig, now: datetime) -> tuple[GraphCandidate, ...]:
    """Memories reached from the first `config.graph_seeds` seeds, under `flt`, best first."""
    adjacency = store.edges.adjacency()
    reached = expand(seeds[: config.graph_seeds], adjacency, now, hops=config.graph_hops,
                     fanout=config.graph_fanout, beam=config.graph_beam)
    return tuple(resolve_graph_hits(store, reached, flt, adjacency))


def with_graph(found: Candidates, graph: Sequence[GraphCandidate]) -> Candidates:
    """`found` plus the graph as a third engine (rank = position, score = path score)."""
    ranking = tuple(Candidate(g.doc_id, rank, g.hit.score) for rank, g in enumerate(graph, 1))
    return replace(found, rankings={**found.rankings, "graph": ranking},
                   graph={g.doc_id: g for g in graph})


def candidates(store: MemoryStore, query: str, flt: Filter, config: RankingConfig, m: int,
               *, now: datetime) -> Candidates:
    """Stage 1: vector and BM25 top-`m` with session context, then the graph from their
    best fused seeds."""
    found = context_candidates(store, engine_candidates(store, query, flt, config, m), flt,
                               config, query)
    if not (config.use_graph and found.rankings):
        return found
    seeds = [f.doc_id for f in fuse(found.rankings, config)]
    return with_graph(found, graph_candidates(store, seeds, flt, config, now))
