"""Maximal Marginal Relevance re-ordering for diversity.

Carbonell & Goldstein (1998), "The use of MMR, diversity-based reranking for reordering
documents and producing summaries". Greedy: repeatedly pick the candidate maximising
`lambda * rel(d) - (1 - lambda) * max_sim(d, picked) * rel_max`, with cosine similarity of the
memories' vectors (a candidate without a vector is similar to nothing). The similarity term is
scaled by the best relevance so both terms share the relevance's units. `mmr` defaults to
lambda = 0.4; `search` passes `RankingConfig.mmr_lambda`, 0.7 by default
(docs/design/retrieval.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memory_core.model.errors import InvalidConfigError


@dataclass(frozen=True)
class MMRPick:
    """A candidate in MMR order with its objective and the similarity that penalised it."""

    doc_id: str
    relevance: float
    max_similarity: float
    objective: float


def mmr(
    relevance: Mapping[str, float],
    vectors: Mapping[str, Sequence[float] | None],
    *,
    lam: float = 0.4,
    limit: int | None = None,
) -> list[MMRPick]:
    """Candidates re-ordered by MMR; ties broken by relevance then id.

    >>> picks = mmr({"a": 1.0, "b": 0.9, "c": 0.5},
    ...             {"a": [1, 0], "b": [1, 0], "c": [0, 1]}, lam=0.5)
    >>> [p.doc_id for p in picks]
    ['a', 'c', 'b']
    """
    if not 0.0 <= lam <= 1.0:
        raise InvalidConfigError(f"MMR lambda must lie in 0..1, got {lam}")
    if not relevance:
        return []
    top = max(relevance.values())
    unit: dict[str, np.ndarray] = {}
    for doc_id in relevance:
        vector = vectors.get(doc_id)
        if vector is not None:
            array = np.asarray(vector, dtype=np.float64)
            norm = np.linalg.norm(array)
            if norm > 0:
                unit[doc_id] = array / norm
    remaining = sorted(relevance, key=lambda d: (-relevance[d], d))
    best_sim = dict.fromkeys(remaining, 0.0)
    picks: list[MMRPick] = []
    while remaining and (limit is None or len(picks) < limit):
        def objective(d: str) -> float:
            return lam * relevance[d] - (1.0 - lam) * best_sim[d] * top

        chosen = max(remaining, key=lambda d: (objective(d), relevance[d], _neg(d)))
        picks.append(MMRPick(chosen, relevance[chosen], best_sim[chosen], objective(chosen)))
        remaining.remove(chosen)
        if chosen in unit:
            for d in remaining:
                if d in unit:
                    best_sim[d] = max(best_sim[d], float(unit[d] @ unit[chosen]))
    return picks


def _neg(doc_id: str) -> tuple[int, ...]:
    """Sort key that prefers the smaller id under `max`."""
    return tuple(-ord(c) for c in doc_id)
