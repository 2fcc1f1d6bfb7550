"""`RankingConfig`: every knob of retrieval in one frozen, serialisable value, and its presets.

Defaults were chosen by measurement on the demo set and the LoCoMo dev split
(docs/decisions/0001-score-fusion.md): a convex combination of z-score-normalised engine
scores (weights vector 1.0 / BM25 1.0 / graph 1.5), session context over 2 neighbours each
side at weight 0.5, and decay as a prior of weight 0.3. RRF keeps ADR-001's values (k=60,
x1.10 convergence bonus; docs/design/seeds.md); the graph keeps HADES's PathRAG caps
(hops <= 2, fanout <= 3, beam <= 8). docs/design/retrieval.md states the formulas.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from memory_core.decay import DecayParams
from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown

MAX_HOPS, MAX_FANOUT, MAX_BEAM = 2, 3, 8
MAX_CONTEXT_WINDOW = 10
FUSIONS = ("rrf", "convex", "combmnz")
NORMALISATIONS = ("zscore", "minmax")
BM25_CONTEXTS = ("window", "lift")


@dataclass(frozen=True)
class RankingConfig:
    """How `search` ranks. Two configs can be compared with `diff` (the Ranking Lab)."""

    use_vector: bool = True
    use_bm25: bool = True
    use_graph: bool = False
    candidates: int = 50  # m: top-m per candidate engine
    rrf_k: int = 60
    weight_vector: float = 1.0
    weight_bm25: float = 1.0
    weight_graph: float = 1.5
    convergence_bonus: float = 1.10  # for documents found by 2+ engines
    graph_seeds: int = 5  # best fused documents the graph starts from
    graph_hops: int = 2
    graph_fanout: int = 3
    graph_beam: int = 8
    #: rrf | convex | combmnz (fusion.py, score_fusion.py); convex by measurement
    #: (docs/decisions/0001-score-fusion.md)
    fusion: str = "convex"
    #: zscore | minmax: how `convex` and `combmnz` put engine scores on one scale
    normalisation: str = "zscore"
    #: session context (context.py): each memory is scored together with its neighbours up
    #: to this many positions away in the same session (same memory type); 0 turns it off
    context_window: int = 2
    #: share of the best neighbour's score a memory gains (the vector engine, BM25's "lift");
    #: in a BM25 window, how many times a neighbour's words count
    context_weight: float = 0.5
    #: how context enters BM25: "window" scores a memory by BM25 over the text of its window
    #: (itself and its neighbours, window_bm25.py); "lift" adds `context_weight` x its best
    #: neighbour's BM25 score, as the vector engine does
    bm25_context: str = "window"
    use_decay: bool = False
    decay: DecayParams = field(default_factory=DecayParams)
    #: beta of the decay prior: a score is multiplied by (1 - beta) + beta * composite, so
    #: decay reorders near-ties but cannot bury a clearly more relevant memory (1 = the raw
    #: composite, as ADR-002 multiplies it)
    decay_weight: float = 0.3
    use_mmr: bool = False
    mmr_lambda: float = 0.7  # relevance-leaning: 0.4 cost demo nDCG@10 0.15

    def __post_init__(self) -> None:
        if not (self.use_vector or self.use_bm25):
            raise InvalidConfigError(
                "turn on the vector or the BM25 engine (the graph needs seeds)"
            )
        checks = [
            (self.candidates >= 1, "candidates must be >= 1"),
            (self.rrf_k >= 1, "rrf_k must be >= 1"),
            (0 <= self.graph_hops <= MAX_HOPS, f"graph_hops must be 0..{MAX_HOPS}"),
            (1 <= self.graph_fanout <= MAX_FANOUT, f"graph_fanout must be 1..{MAX_FANOUT}"),
            (1 <= self.graph_beam <= MAX_BEAM, f"graph_beam must be 1..{MAX_BEAM}"),
            (self.graph_seeds >= 1, "graph_seeds must be >= 1"),
            (0.0 <= self.mmr_lambda <= 1.0, "mmr_lambda must lie in 0..1"),
            (min(self.weight_vector, self.weight_bm25, self.weight_graph) >= 0,
             "engine weights must be >= 0"),
            (self.convergence_bonus >= 1.0, "convergence_bonus must be >= 1"),
            (self.fusion in FUSIONS, f"fusion must be one of: {', '.join(FUSIONS)}"),
            (self.normalisation in NORMALISATIONS,
             f"normalisation must be one of: {', '.join(NORMALISATIONS)}"),
            (0 <= self.context_window <= MAX_CONTEXT_WINDOW,
             f"context_window must be 0..{MAX_CONTEXT_WINDOW}"),
            (0.0 <= self.context_weight <= 1.0, "context_weight must lie in 0..1"),
            (self.bm25_context in BM25_CONTEXTS,
             f"bm25_context must be one of: {', '.join(BM25_CONTEXTS)}"),
            (0.0 <= self.decay_weight <= 1.0, "decay_weight must lie in 0..1"),
        ]
        for ok, message in checks:
            if not ok:
                raise InvalidConfigError(message)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict of every knob."""
        return asdict(self)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys): equal configs give equal strings."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RankingConfig:
        """A config from `to_dict` output; unknown keys are an error naming the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidConfigError(f"unknown ranking option(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(known))}")
        data = dict(data)
        if isinstance(data.get("decay"), dict):
            data["decay"] = DecayParams(**data["decay"])
        return cls(**data)

    def with_changes(self, **changes: Any) -> RankingConfig:
        """A copy with `changes` (validated)."""
        return replace(self, **changes)

    def diff(self, other: RankingConfig) -> list[tuple[str, Any, Any]]:
        """(knob, self value, other value) for every knob that differs, nested ones dotted."""
        mine, theirs = _flat(self.to_dict()), _flat(other.to_dict())
        return [(k, mine.get(k), theirs.get(k)) for k in sorted(set(mine) | set(theirs))
                if mine.get(k) != theirs.get(k)]


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


#: The single engines are plain (no session context), so "never below its best single
#: engine" compares with the engines as they are; `hybrid_rrf` is the hybrid memlens shipped
#: before score fusion (ADR-001's weighted RRF, docs/design/seeds.md), kept for comparison.
PRESETS: dict[str, RankingConfig] = {
    "vector": RankingConfig(use_bm25=False, context_window=0),
    "bm25": RankingConfig(use_vector=False, context_window=0),
    "hybrid": RankingConfig(),
    "hybrid_rrf": RankingConfig(fusion="rrf", context_window=0),
    "hybrid_graph": RankingConfig(use_graph=True),
    "full": RankingConfig(use_graph=True, use_decay=True),
}


#: The preset `search()`, `memlens search`, `memlens eval` and the pages rank with when none is
#: named: one constant, so the API, the CLI and the app always agree.
DEFAULT_PRESET = "hybrid_graph"
#: What `recall()`, the agents' call, ranks with when given no config: search plus decay.
RECALL_PRESET = "full"


def preset(name: str) -> RankingConfig:
    """The named preset; an unknown name raises `ValueError` listing the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise InvalidConfigError(
            f"unknown preset {shown(name)}; use one of: {', '.join(PRESETS)}"
        ) from None
