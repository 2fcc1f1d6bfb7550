"""Running one `RankingConfig` over a query set: the ranked ids and the hits behind them.

A run keeps, per query, the ranked (memory id, score) pairs and the `Hit`s themselves (their
memories carry no vectors) so that a page can show why a memory ranked where it did. Every
query of the set is in the run, including those that found nothing; those, and those none of
whose relevant memories is in the tenant, are named in `warnings` with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memory_core.evaluation.query_warnings import QueryWarning, query_warnings
from memory_core.evaluation.queryset import Query, QuerySetError
from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.search import Hit, search
from memory_core.store import MemoryStore

Progress = Callable[[int], None]


@dataclass(frozen=True)
class RetrievalRun:
    """What one config retrieved for every query of a set.

    `ranked[qid]` is [(memory id, score)] best first (empty when nothing matched); `hits[qid]`
    the matching `Hit`s with their explanations. `reasons` gathers why search ran degraded
    (each reason once); `unreachable` lists the qids none of whose relevant memories is in
    the store (they score 0 everywhere, which usually means the wrong store or tenant);
    `warnings` names every query that retrieved nothing, and every unreachable one, with why
    when it can be told (`memory_core.evaluation.query_warnings`).
    """

    config: RankingConfig
    depth: int
    ranked: dict[str, tuple[tuple[str, float], ...]]
    hits: dict[str, tuple[Hit, ...]] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()
    warnings: tuple[QueryWarning, ...] = ()
    now: datetime | None = None
    elapsed_s: float = 0.0

    def ids(self, qid: str) -> list[str]:
        """The ranked memory ids of one query (empty if it found nothing)."""
        return [memory_id for memory_id, _ in self.ranked.get(qid, ())]

    @classmethod
    def from_ranked(cls, ranked: Mapping[str, Sequence[str]], *,
                    config: RankingConfig | None = None, depth: int | None = None
                    ) -> RetrievalRun:
        """A run from plain ranked id lists (tests, imported runs); scores are 1/rank. An
        empty list is warned about, without a reason (there is no store to ask)."""
        pairs = {qid: tuple((i, 1.0 / r) for r, i in enumerate(ids, 1))
                 for qid, ids in ranked.items()}
        deepest = max((len(ids) for ids in ranked.values()), default=0)
        return cls(config=config or RankingConfig(), depth=depth or max(deepest, 1),
                   ranked=pairs, warnings=tuple(QueryWarning(qid, "empty")
                                                for qid, ids in ranked.items() if not ids))


def unreachable_queries(store: MemoryStore, queries: Sequence[Query]) -> tuple[str, ...]:
    """The qids none of whose relevant memories this store's tenant holds (they score 0)."""
    wanted = sorted({i for q in queries for i in q.relevant})
    present = set(store.get_many(wanted))
    return tuple(q.qid for q in queries if not present & set(q.relevant))


def check_reachable(store: MemoryStore, queries: Sequence[Query]) -> None:
    """Refuse a query set none of whose relevant memories are in the store's tenant: every
    metric would be 0, which says nothing but "wrong store or tenant"."""
    if queries and len(unreachable_queries(store, queries)) == len(queries):
        raise QuerySetError(
            f"none of the {len(queries)} queries has a relevant memory in tenant "
            f"{shown(store.tenant)} of {store.uri}; point --store/--tenant (MEMLENS_STORE, "
            f"MEMLENS_TENANT) at the store the query set was made for, or import its "
            f"benchmark there first")


def run_queries(
    store: MemoryStore,
    queries: Sequence[Query],
    config: RankingConfig,
    *,
    depth: int = 10,
    progress: Progress | None = None,
    now: datetime | None = None,
    keep_hits: bool = True,
) -> RetrievalRun:
    """Search every query with its own filter under `config`, keeping the top `depth` hits.

    `now` fixes the clock of the decay rerank so that two configs are compared on the same
    day (default: now). `progress(1)` is called after each query. Without `keep_hits` the
    run keeps the ranked ids and scores only (`tune` needs no more, and the hits of a large
    set, memories and all, are most of its memory).
    """
    if depth < 1:
        raise InvalidConfigError(f"depth must be >= 1, got {depth}")
    started = time.perf_counter()
    now = now or utcnow()
    ranked: dict[str, tuple[tuple[str, float], ...]] = {}
    hits: dict[str, tuple[Hit, ...]] = {}
    reasons: dict[str, None] = {}
    for q in queries:
        results = search(store, q.query, q.filter, config, limit=depth, now=now)
        if keep_hits:
            hits[q.qid] = tuple(results)
        ranked[q.qid] = tuple((h.memory.id, h.score) for h in results)
        reasons.update(dict.fromkeys(results.reasons))
        if progress is not None:
            progress(1)
    unreachable = unreachable_queries(store, queries)
    return RetrievalRun(config=config, depth=depth, ranked=ranked, hits=hits,
                        reasons=tuple(reasons), unreachable=unreachable,
                        warnings=query_warnings(store, queries, ranked, unreachable),
                        now=now, elapsed_s=time.perf_counter() - started)
