"""Stage 3 of `search()`: decay as a bounded prior on the fused score, then optionally MMR.

Decay multiplies the fused score by `(1 - decay_weight) + decay_weight * composite`, the
memory's composite (docs/design/decay.md) weighed by `RankingConfig.decay_weight`, so it
reorders near-ties and never buries a clearly more relevant memory; MMR (Carbonell &
Goldstein 1998, see `mmr.py`) then trades relevance for diversity and records by how much.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memory_core.decay import DecayFactors, composite
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.fusion import Fused
from memory_core.retrieval.mmr import mmr

_WORDS = re.compile(r"\w+")


@dataclass(frozen=True)
class Scored:
    """A fused candidate with its memory, decay and reranked value.

    `value` is `fused.score * decay` (`decay` the applied prior, see `decay_prior`);
    `mmr_adjustment` is what MMR added (0 or negative), so the final score is
    `value + mmr_adjustment`.
    """

    fused: Fused
    memory: Memory
    factors: DecayFactors | None
    value: float
    mmr_adjustment: float = 0.0

    @property
    def doc_id(self) -> str:
        """The memory's id."""
        return self.fused.doc_id

    prior: float = 1.0

    @property
    def decay(self) -> float:
        """The decay prior applied to the fused score, 1 when decay is off."""
        return self.prior

    @property
    def score(self) -> float:
        """The final score."""
        return self.value + self.mmr_adjustment


def decay_prior(composite: float, beta: float) -> float:
    """The multiplier decay applies: `(1 - beta) + beta * composite`.

    With beta < 1 a memory's score moves by at most beta x (composite - 1): decay reorders
    memories whose fused scores are within that band and leaves a clearly more relevant one
    above a fresher, weaker one. beta = 1 is the plain multiplication ADR-002 describes.

    >>> decay_prior(0.5, 0.2)
    0.9
    """
    return (1.0 - beta) + beta * composite


def pool_size(config: RankingConfig, limit: int) -> int:
    """How many fused candidates to rerank: extra room when decay or MMR can promote some."""
    return max(limit * 3, limit + 20) if (config.use_decay or config.use_mmr) else limit


def _pattern_context(memory: Memory, query_words: set[str], flt: Filter) -> bool:
    projects = (flt.project,) if isinstance(flt.project, str) else tuple(flt.project or ())
    return memory.project in projects or bool(query_words & {t.lower() for t in memory.tags})


def pattern_in_context(memory: Memory, query: str, flt: Filter) -> bool:
    """Whether `memory` is in the query's context for the pattern factor (its project is one
    `flt` asks for, or one of its tags is a word of `query`), as `apply_decay` decides it."""
    return _pattern_context(memory, {w.lower() for w in _WORDS.findall(query)}, flt)


def apply_decay(pool: Sequence[Fused], memories: Mapping[str, Memory], config: RankingConfig,
                *, query: str, flt: Filter, now: datetime,
                cited: Mapping[str, datetime] | None = None) -> list[Scored]:
    """The pool's memories scored `fused * decay` (decay 1 when off), best first, ties by id.

    A memory is a pattern in context when its project is one the filter asks for or one of its
    tags is a word of the query; `cited` maps a memory to its latest `cite` event. Candidates
    whose memory is missing are dropped.
    """
    cited = cited or {}
    words = {w.lower() for w in _WORDS.findall(query)}
    scored = []
    for fused in pool:
        memory = memories.get(fused.doc_id)
        if memory is None:
            continue
        factors = (composite(memory, now, params=config.decay,
                             pattern_match=_pattern_context(memory, words, flt),
                             cited_at=cited.get(memory.id))
                   if config.use_decay else None)
        prior = decay_prior(factors.composite, config.decay_weight) if factors else 1.0
        scored.append(Scored(fused, memory, factors, fused.score * prior, prior=prior))
    return sorted(scored, key=lambda s: (-s.value, s.doc_id))


def diversify(scored: Sequence[Scored], lam: float, limit: int) -> list[Scored]:
    """The first `limit` of `scored` in MMR order, each with its MMR adjustment.

    The adjustment is the MMR objective minus the relevance, so `score` is the objective.
    """
    picks = mmr({s.doc_id: s.value for s in scored},
                {s.doc_id: s.memory.vector for s in scored}, lam=lam, limit=limit)
    by_id = {s.doc_id: s for s in scored}
    return [replace(by_id[p.doc_id], mmr_adjustment=p.objective - p.relevance) for p in picks]


def rerank(pool: Sequence[Fused], memories: Mapping[str, Memory], config: RankingConfig,
           *, query: str, flt: Filter, now: datetime, limit: int,
           cited: Mapping[str, datetime] | None = None) -> list[Scored]:
    """Stage 3: the best `limit` of `pool` after decay (if on) and MMR (if on)."""
    scored = apply_decay(pool, memories, config, query=query, flt=flt, now=now, cited=cited)
    if config.use_mmr:
        return diversify(scored, config.mmr_lambda, limit)
    return scored[:limit]
