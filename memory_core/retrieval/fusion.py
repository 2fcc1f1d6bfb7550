"""Reciprocal Rank Fusion with per-engine weights and a convergence bonus; `fuse` picks the
config's fusion method (RRF here, score fusions in `score_fusion.py`).

Cormack, Clarke & Buettcher (2009), "Reciprocal rank fusion outperforms Condorcet and
individual rank learning methods"; weights and the bonus as ADR-001 decided (dotmd's;
docs/design/seeds.md):
`score(d) = bonus(d) * sum_e w_e / (k + rank_e(d))`, ranks starting at 1, `bonus(d)` = 1.10
when d was found by two or more engines, else 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memory_core.model.errors import InvalidConfigError
from memory_core.retrieval.fused import Fused
from memory_core.retrieval.score_fusion import score_fusion

if TYPE_CHECKING:
    from memory_core.retrieval.config import RankingConfig
    from memory_core.retrieval.engines import Candidate

    Scoreable = str | Candidate


def rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    *,
    k: int = 60,
    convergence_bonus: float = 1.10,
) -> list[Fused]:
    """Fuse ranked id lists (best first) into one list, best first (ties by id).

    >>> fused = rrf({"vector": ["a", "b"], "bm25": ["b"]}, {"vector": 1.0, "bm25": 1.0})
    >>> [(f.doc_id, round(f.score, 6)) for f in fused]
    [('b', 0.035775), ('a', 0.016393)]
    """
    if k < 1:
        raise InvalidConfigError(f"RRF k must be >= 1, got {k}")
    missing = sorted(set(rankings) - set(weights))
    if missing:
        raise InvalidConfigError(f"no weight for engine(s) {', '.join(missing)}")
    ranks: dict[str, dict[str, int]] = {}
    for engine, ids in rankings.items():
        for position, doc_id in enumerate(dict.fromkeys(ids), start=1):
            ranks.setdefault(doc_id, {})[engine] = position
    fused = []
    for doc_id, by_engine in ranks.items():
        contributions = {e: weights[e] / (k + r) for e, r in by_engine.items()}
        total = sum(contributions.values())
        bonus = convergence_bonus if len(by_engine) >= 2 else 1.0
        fused.append(Fused(doc_id, by_engine, contributions, total, bonus, total * bonus))
    return sorted(fused, key=lambda f: (-f.score, f.doc_id))


def _pairs(ranking: Sequence[Scoreable]) -> list[tuple[str, float]]:
    """(doc id, score) of a ranking; a bare id list scores 1/rank."""
    return [(c, 1.0 / r) if isinstance(c, str) else (c.doc_id, c.score)
            for r, c in enumerate(ranking, 1)]


def fuse(rankings: Mapping[str, Sequence[Scoreable]], config: RankingConfig) -> list[Fused]:
    """Fuse each engine's ranking (candidates with scores, or bare ids best first) by the
    config's `fusion`: `rrf` (weights, k, convergence bonus) or a score fusion (`convex`,
    `combmnz`, with the config's `normalisation`; `score_fusion.py`).

    >>> from memory_core.retrieval.config import RankingConfig
    >>> [f.doc_id for f in fuse({"bm25": ["a"], "graph": ["b"]},
    ...                         RankingConfig(fusion="rrf", use_graph=True))]
    ['b', 'a']
    """
    weights = {"vector": config.weight_vector, "bm25": config.weight_bm25,
               "graph": config.weight_graph}
    if config.fusion == "rrf":
        ids = {e: [c if isinstance(c, str) else c.doc_id for c in ranking]
               for e, ranking in rankings.items()}
        return rrf(ids, weights, k=config.rrf_k, convergence_bonus=config.convergence_bonus)
    return score_fusion({e: _pairs(r) for e, r in rankings.items()}, weights,
                        method=config.fusion, normalisation=config.normalisation)
