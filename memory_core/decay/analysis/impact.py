"""`decay_impact`: one query ranked with the decay prior on and off, everything else equal,
and which factor moved each memory (docs/design/retrieval.md, docs/design/decay.md), for the
Decay page."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime

from memory_core.decay import DecayFactors, composite
from memory_core.decay.analysis.frame import clock
from memory_core.decay.analysis.model import DecayImpact, ImpactRow
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.config import RECALL_PRESET, RankingConfig, preset
from memory_core.retrieval.rerank import pattern_in_context
from memory_core.retrieval.results import Hit
from memory_core.retrieval.search import cited_times, search
from memory_core.store import MemoryStore

#: The factors `main_factor` chooses from, in the order that breaks ties.
FACTORS = ("retrievability", "usage", "anchor", "pattern", "citation")
#: `main_factor` when every factor is 1 (a constitutional memory, a fresh one...).
NO_FACTOR = "none"


def main_factor(factors: DecayFactors) -> str:
    """The factor whose log is farthest from 0 (the one that moved the score most);
    `NO_FACTOR` when every factor is 1.

    >>> main_factor(DecayFactors(0.6, 1.2, 1.0, 1.0, 1.1, 0.792))
    'retrievability'
    """
    weights = {name: abs(math.log(getattr(factors, name))) for name in FACTORS}
    best = max(FACTORS, key=lambda name: weights[name])  # first of equals wins
    return best if weights[best] > 0.0 else NO_FACTOR


def _factors_of(store: MemoryStore, memories: list[Memory], query: str, flt: Filter,
                cfg: RankingConfig, as_of: datetime) -> dict[str, DecayFactors]:
    """The decay factors `search` would give memories it ranked only without decay."""
    if not memories:
        return {}
    cited = cited_times(store, [m.id for m in memories], as_of, cfg)
    return {m.id: composite(m, as_of, params=cfg.decay, cited_at=cited.get(m.id),
                            pattern_match=pattern_in_context(m, query, flt))
            for m in memories}


def _row(memory: Memory, factors: DecayFactors, with_hit: Hit | None,
         without_hit: Hit | None) -> ImpactRow:
    return ImpactRow(
        id=memory.id, content=memory.content,
        rank_with=with_hit.rank if with_hit else None,
        rank_without=without_hit.rank if without_hit else None,
        score_with=with_hit.score if with_hit else None,
        score_without=without_hit.score if without_hit else None,
        composite=factors.composite, main_factor=main_factor(factors),
        factors={name: getattr(factors, name) for name in (*FACTORS, "composite")})


def decay_impact(store: MemoryStore, query: str, config: RankingConfig | None = None, *,
                 filter: Filter | None = None, as_of: datetime | None = None,
                 limit: int = 10) -> DecayImpact:
    """`query`'s top `limit` under `config` (default: the `full` preset) with `use_decay`
    on and off, at the decay clock `as_of` (now by default). Rows follow the ranking with
    decay, then the memories only the ranking without it has; each carries its rank (None
    where it is not in that top `limit`), both scores, its decay factors and the main one.

    Example: `decay_impact(store, "retry policy", limit=5).to_frame()`.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidConfigError(f"limit must be a whole number >= 1, got {limit!r}")
    if config is not None and not isinstance(config, RankingConfig):
        raise InvalidConfigError(
            f"config must be a RankingConfig, got {type(config).__name__}; use "
            f"preset({RECALL_PRESET!r}) or RankingConfig(...)")
    base = config or preset(RECALL_PRESET)
    on, off = replace(base, use_decay=True), replace(base, use_decay=False)
    flt = filter or Filter()
    as_of = clock(as_of)
    with_decay = search(store, query, flt, on, limit, now=as_of)
    without = {h.memory.id: h for h in search(store, query, flt, off, limit, now=as_of)}
    ranked = {h.memory.id for h in with_decay}
    only_without = [h.memory for h in without.values() if h.memory.id not in ranked]
    computed = _factors_of(store, only_without, query, flt, on, as_of)
    rows = [_row(h.memory, h.decay_factors or computed[h.memory.id], h,
                 without.get(h.memory.id)) for h in with_decay]
    rows += [_row(h.memory, computed[h.memory.id], None, h)
             for h in sorted(without.values(), key=lambda h: h.rank)
             if h.memory.id not in ranked]
    return DecayImpact(query=query, as_of=as_of, rows=tuple(rows))
