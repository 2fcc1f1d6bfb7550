"""`search()`: hybrid retrieval with an explanation on every hit (docs/design/retrieval.md).

A pipeline of named stages with typed values between them:
1. `candidates` -> `Candidates`: vector and BM25 top-m under the filter, each memory scored
   with its session neighbours (`retrieval/context.py`), graph expansion from the best of
   them, and why any engine was off (`retrieval/candidates.py`);
2. `fuse` -> `list[Fused]`: the config's fusion of the engines' lists, convex by default
   (weighted normalised scores), or weighted RRF with its convergence bonus, or CombMNZ
   (`retrieval/fusion.py`, `retrieval/score_fusion.py`);
3. `rerank` -> `list[Scored]`: the decay composite, then MMR (`retrieval/rerank.py`);
4. `explain` -> `list[Hit]`: each hit with the parts of its score, so that
   `score == fused_sum * bonus * decay + mmr_adjustment` (`retrieval/results.py`).
Searching never changes access statistics; `recall` is the call that records access.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.values import utcnow
from memory_core.retrieval.candidates import Candidates, candidates
from memory_core.retrieval.config import DEFAULT_PRESET, RankingConfig, preset
from memory_core.retrieval.fusion import fuse
from memory_core.retrieval.rerank import Scored, pool_size, rerank
from memory_core.retrieval.results import EngineEvidence, Hit, SearchResults
from memory_core.store import MemoryStore

__all__ = ["EngineEvidence", "Hit", "SearchResults", "explain", "search"]


def explain(ranked: Sequence[Scored], found: Candidates) -> list[Hit]:
    """Stage 4: `ranked` as `Hit`s, ranks from 1, each with its engines' evidence."""
    evidence = found.by_id()
    hits = []
    for rank, s in enumerate(ranked, 1):
        engines = {}
        for e in s.fused.ranks:
            lift = found.context.get(e, {}).get(s.doc_id)
            engines[e] = EngineEvidence(
                evidence[e][s.doc_id].rank, evidence[e][s.doc_id].score,
                s.fused.contributions[e], context=lift.added if lift else 0.0,
                context_from=lift.neighbour if lift else None)
        graph = found.graph.get(s.doc_id)
        hits.append(Hit(
            memory=replace(s.memory, vector=None), rank=rank, engines=engines,
            fused_sum=s.fused.fused_sum,
            bonus=s.fused.bonus, decay=s.decay, mmr_adjustment=s.mmr_adjustment, score=s.score,
            decay_factors=s.factors, graph=graph.hit if graph else None,
            replaces=graph.replaces if graph else None,
        ))
    return hits


def pool_memories(store: MemoryStore, ids: Sequence[str], found: Candidates, *,
                  with_vectors: bool) -> dict[str, Memory]:
    """The memories of the fused pool: by the row ids their engines returned (no id
    look-up), the graph's by id."""
    rows = found.row_ids()
    memories = store.rows.memories({rows[i]: i for i in ids if i in rows},
                                   with_vectors=with_vectors)
    rest = [i for i in ids if i not in rows]
    if rest:
        memories.update(store.get_many(rest, with_vectors=with_vectors))
    return memories


def cited_times(store: MemoryStore, ids: list[str], now: datetime, cfg: RankingConfig
                ) -> dict[str, datetime]:
    """The latest `cite` event of each of `ids` within the citation window before `now`."""
    window = timedelta(days=cfg.decay.citation_days)
    latest = store.events.latest("cite", memory_ids=ids, since=now - window,
                                    until=now + timedelta(microseconds=1))
    return dict(zip(latest["memory_id"].to_pylist(), latest["at"].to_pylist(), strict=True))


def search(
    store: MemoryStore,
    query: str,
    filter: Filter | None = None,
    config: RankingConfig | None = None,
    limit: int = 10,
    *,
    now: datetime | None = None,
) -> SearchResults:
    """The `limit` best memories for `query` under `filter`, each with its explanation.

    `config` defaults to the `DEFAULT_PRESET` (the CLI's and the pages' default too); `now`
    fixes the decay clock.
    """
    started = time.perf_counter()
    cfg = config or preset(DEFAULT_PRESET)
    flt = filter or Filter()
    now = now or utcnow()
    found = candidates(store, query, flt, cfg, max(cfg.candidates, limit), now=now)
    pool = fuse(found.rankings, cfg)[: pool_size(cfg, limit)]
    memories = pool_memories(store, [f.doc_id for f in pool], found, with_vectors=cfg.use_mmr)
    cited = cited_times(store, list(memories), now, cfg) if cfg.use_decay else {}
    ranked = rerank(pool, memories, cfg, query=query, flt=flt, now=now, limit=limit,
                    cited=cited)
    return SearchResults(tuple(explain(ranked, found)), query=query, config=cfg,
                         degraded=bool(found.reasons), reasons=found.reasons,
                         elapsed_ms=(time.perf_counter() - started) * 1000)
