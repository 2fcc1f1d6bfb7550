"""What `search()` returns: `Hit`s that carry their explanation, in `SearchResults`.

A hit's parts add up to its score: `score == fused_sum * bonus * decay + mmr_adjustment`, where
`fused_sum` is the sum of the engines' contributions (RRF terms, or weighted normalised scores
for the score fusions), `bonus` the fusion's multiplier (RRF's convergence bonus, CombMNZ's
engine count, 1 for convex) and `decay` the applied decay prior.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from memory_core.causal.expansion import GraphHit
from memory_core.decay import DecayFactors
from memory_core.model.records import Memory
from memory_core.retrieval.config import DEFAULT_PRESET, RankingConfig, preset


@dataclass(frozen=True)
class EngineEvidence:
    """What one engine said about a hit: its rank, score and contribution to the fused sum.

    With session context on, `score` includes `context`: what the best neighbour in the
    session (`context_from`) added to the engine's own score.
    """

    rank: int
    score: float
    contribution: float
    context: float = 0.0
    context_from: str | None = None


@dataclass(frozen=True)
class Hit:
    """One search result and why it ranks where it does."""

    memory: Memory
    rank: int
    engines: dict[str, EngineEvidence]
    fused_sum: float
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
        return self.fused_sum * self.bonus

    def explain(self) -> dict[str, Any]:
        """The explanation as plain data (CLI `--json`, pages)."""
        out: dict[str, Any] = {
            "rank": self.rank,
            "score": self.score,
            "engines": {e: _evidence(ev) for e, ev in self.engines.items()},
            "fused_sum": self.fused_sum,
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


def _evidence(ev: EngineEvidence) -> dict[str, Any]:
    """An engine's evidence as plain data; the context keys only when context added some."""
    out: dict[str, Any] = {"rank": ev.rank, "score": ev.score, "contribution": ev.contribution}
    if ev.context:
        out["context"] = ev.context
        out["context_from"] = ev.context_from
    return out


def _default_config() -> RankingConfig:
    return preset(DEFAULT_PRESET)


@dataclass(frozen=True)
class SearchResults(Sequence[Hit]):
    """The hits, best first, plus whether retrieval ran degraded and why.

    A sequence of `Hit`s (iterate, index, `len`). Two results are equal when their hits,
    query, config, degraded flag and reasons are; the time taken is not compared.

    >>> SearchResults((), "q", elapsed_ms=3.0) == SearchResults((), "q", elapsed_ms=5.0)
    True
    """

    hits: tuple[Hit, ...] = ()
    query: str = ""
    config: RankingConfig = field(default_factory=_default_config)
    degraded: bool = False
    reasons: tuple[str, ...] = ()
    elapsed_ms: float = field(default=0.0, compare=False)

    def __post_init__(self) -> None:
        # tuples whatever the caller passed, so the value stays immutable and compares by content
        object.__setattr__(self, "hits", tuple(self.hits))
        object.__setattr__(self, "reasons", tuple(self.reasons))

    @overload
    def __getitem__(self, index: int) -> Hit: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Hit, ...]: ...

    def __getitem__(self, index: int | slice) -> Hit | tuple[Hit, ...]:
        return self.hits[index]

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)
