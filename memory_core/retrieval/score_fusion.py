"""Score fusion: a convex combination of normalised engine scores, and CombMNZ.

RRF (`fusion.py`) fuses ranks only, so a strong engine's clear winner and a weak engine's
noise count the same; score fusion keeps how far ahead each engine puts a document.

* Normalisation, per engine over its candidate list: `zscore` is `(s - min) / std`, the
  z-score shifted so the engine's weakest candidate (and any document it did not return)
  scores 0 (Montague & Aslam 2001, "Relevance score normalization for metasearch"; the shift
  keeps fused scores non-negative, so the decay prior can multiply them); `minmax` is
  `(s - min) / (max - min)`. A list of equal scores normalises to 1 for every entry.
* `convex`: `sum_e w_e * n_e(d) / sum_e w_e` over the engines that ran (Bruch, Gai &
  Ingber 2023, "An Analysis of Fusion Functions for Hybrid Retrieval": a tuned convex
  combination beats RRF and is robust to its one weight).
* `combmnz`: `|{e : d in e}| * sum_e w_e * n_e(d) / sum_e w_e` (Fox & Shaw 1994, "Combination
  of multiple searches"): the sum times how many engines found the document.

Each `Fused` keeps the engine contributions (they sum to `fused_sum`) and the multiplier as
`bonus`, so `score = fused_sum * bonus`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from memory_core.model.errors import InvalidConfigError
from memory_core.retrieval.config import NORMALISATIONS
from memory_core.retrieval.fused import Fused


def normalise(scores: Sequence[float], method: str) -> list[float]:
    """`scores` normalised by `method` (see the module doc).

    >>> normalise([3.0, 2.0, 1.0], "minmax")
    [1.0, 0.5, 0.0]
    >>> [round(x, 4) for x in normalise([3.0, 2.0, 1.0], "zscore")]
    [2.4495, 1.2247, 0.0]
    """
    if method not in NORMALISATIONS:
        raise InvalidConfigError(f"unknown normalisation {method!r}; use one of: "
                                 f"{', '.join(NORMALISATIONS)}")
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [1.0] * len(scores)
    if method == "minmax":
        return [(s - low) / (high - low) for s in scores]
    mean = math.fsum(scores) / len(scores)
    std = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
    return [(s - low) / std for s in scores]


def _normalised(rankings: Mapping[str, Sequence[tuple[str, float]]], method: str
                ) -> dict[str, dict[str, tuple[int, float]]]:
    """engine -> doc -> (1-based rank, normalised score); a repeated doc keeps its first."""
    out: dict[str, dict[str, tuple[int, float]]] = {}
    for engine, pairs in rankings.items():
        first: dict[str, float] = {}
        for doc_id, score in pairs:
            first.setdefault(doc_id, score)
        unique = list(first.items())
        values = normalise([s for _, s in unique], method)
        out[engine] = {d: (r, v) for r, ((d, _), v) in enumerate(zip(unique, values,
                                                                     strict=True), 1)}
    return out


def score_fusion(rankings: Mapping[str, Sequence[tuple[str, float]]],
                 weights: Mapping[str, float], *, method: str = "convex",
                 normalisation: str = "zscore") -> list[Fused]:
    """Fuse (doc id, raw score) lists, best first, by `method` ("convex" or "combmnz").

    >>> fused = score_fusion({"bm25": [("a", 9.0), ("b", 1.0)], "vector": [("b", 0.9),
    ...                        ("a", 0.1)]}, {"bm25": 3.0, "vector": 1.0},
    ...                       normalisation="minmax")
    >>> [(f.doc_id, f.score) for f in fused]
    [('a', 0.75), ('b', 0.25)]
    """
    if method not in ("convex", "combmnz"):
        raise InvalidConfigError(f"unknown score fusion {method!r}; use convex or combmnz")
    missing = sorted(set(rankings) - set(weights))
    if missing:
        raise InvalidConfigError(f"no weight for engine(s) {', '.join(missing)}")
    # every weight 0 (an engine switched off by its weight) scores everything 0, as RRF does
    total_weight = math.fsum(weights[e] for e in rankings) or 1.0
    per_engine = _normalised(rankings, normalisation)
    docs: dict[str, dict[str, tuple[int, float]]] = {}
    for engine, found in per_engine.items():
        for doc_id, rank_value in found.items():
            docs.setdefault(doc_id, {})[engine] = rank_value
    fused = []
    for doc_id, by_engine in docs.items():
        contributions = {e: weights[e] * v / total_weight for e, (_, v) in by_engine.items()}
        total = math.fsum(contributions.values())
        bonus = float(len(by_engine)) if method == "combmnz" else 1.0
        fused.append(Fused(doc_id, {e: r for e, (r, _) in by_engine.items()}, contributions,
                           total, bonus, total * bonus))
    return sorted(fused, key=lambda f: (-f.score, f.doc_id))
