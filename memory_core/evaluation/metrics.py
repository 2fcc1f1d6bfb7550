"""Retrieval metrics per query, the definitions of ranx (Bassani, ECIR 2022), computed here.

For a query with relevant set R (every grade >= 1 counts as relevant) and a ranked list
d_1..d_n (n <= depth = max k):

- `recall@k`    = |R ∩ top k| / |R|  (below 1 whenever |R| > k)
- `precision@k` = |R ∩ top k| / k    (k, not n: a short list is not rewarded)
- `hit_rate@k`  = 1 if any of the top k is relevant, else 0
- `ndcg@k`      = DCG@k / IDCG@k with DCG@k = sum_i grade(d_i) / log2(i + 1): the linear-gain
  form of Järvelin & Kekäläinen (TOIS 2002), ranx's "ndcg" (not the 2^grade - 1 gain of
  Burges et al., ranx's "ndcg_burges"); IDCG orders the graded relevant set best first
- `mrr@depth`   = 1 / rank of the first relevant memory (0 if none in the list)
- `map@depth`   = sum over relevant d_i of precision@i, divided by |R| (so relevant memories
  that were not retrieved count as misses)

A query that retrieved nothing, or whose relevant memories are not in the store at all, is
still scored (0 on every metric): the mean is over the whole query set.

They are ranx's metrics of the same names, value for value (a test compares them with ranx's
numbers for seeded random runs), computed in plain Python: ranx's numba kernels and typed
containers compile on first use in every process, a delay of seconds that every `memlens
eval`, notebook kernel and first Ranking Lab run would pay for a few hundred additions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from memory_core.evaluation.queryset import Query
from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown

#: Metrics computed at every k, in display order.
AT_K = ("recall", "precision", "hit_rate", "ndcg")
#: Metrics computed over the whole ranked list (depth = the largest k).
OVER_LIST = ("mrr", "map")
DEFAULT_KS = (5, 10)


def check_ks(ks: Iterable[int]) -> tuple[int, ...]:
    """The cut-offs sorted and de-duplicated; each must be an integer >= 1.

    >>> check_ks([10, 5, 10])
    (5, 10)
    """
    values = list(ks)
    bad = [k for k in values if isinstance(k, bool) or not isinstance(k, int) or k < 1]
    if bad or not values:
        raise InvalidConfigError(f"cut-offs k must be integers >= 1, got {shown(values)}")
    return tuple(sorted(set(values)))


def metric_names(ks: Iterable[int] = DEFAULT_KS) -> tuple[str, ...]:
    """Metric names in display order, spelled as ranx spells them.

    >>> metric_names((5, 10))[:3]
    ('recall@5', 'recall@10', 'precision@5')
    >>> metric_names((5, 10))[-2:]
    ('mrr@10', 'map@10')
    """
    cuts = check_ks(ks)
    return tuple(f"{m}@{k}" for m in AT_K for k in cuts) + tuple(
        f"{m}@{cuts[-1]}" for m in OVER_LIST)


def query_scores(relevant: Mapping[str, int], ranked: Sequence[str], ks: Iterable[int]
                 ) -> dict[str, float]:
    """Every metric of `metric_names(ks)` for one query: `relevant` maps memory id -> grade
    (>= 1), `ranked` lists memory ids best first (cut at the largest k; a repeated id counts
    once).

    >>> s = query_scores({"a": 2, "b": 1}, ["x", "a", "y"], (1, 3))
    >>> s["recall@3"], s["precision@3"], s["hit_rate@1"], s["mrr@3"], s["map@3"]
    (0.5, 0.3333333333333333, 0.0, 0.5, 0.25)
    >>> round(s["ndcg@3"], 4)  # (2 / log2 3) / (2 / log2 2 + 1 / log2 3)
    0.4796
    """
    cuts = check_ks(ks)
    depth = cuts[-1]
    grades = [relevant.get(i, 0) for i in list(dict.fromkeys(ranked))[:depth]]
    ideal = sorted((g for g in relevant.values() if g >= 1), reverse=True)
    n_relevant = len(ideal)
    scores: dict[str, float] = {}
    for k in cuts:
        top = grades[:k]
        hits = sum(1 for g in top if g >= 1)
        scores[f"recall@{k}"] = hits / n_relevant if n_relevant else 0.0
        scores[f"precision@{k}"] = hits / k
        scores[f"hit_rate@{k}"] = 1.0 if hits else 0.0
        dcg = sum(g / math.log2(r + 2) for r, g in enumerate(top) if g >= 1)
        best = sum(g / math.log2(r + 2) for r, g in enumerate(ideal[:k]))
        scores[f"ndcg@{k}"] = dcg / best if best else 0.0
    first = next((r for r, g in enumerate(grades) if g >= 1), None)
    scores[f"mrr@{depth}"] = 0.0 if first is None else 1 / (first + 1)
    found = precision_sum = 0.0
    for r, g in enumerate(grades):
        if g >= 1:
            found += 1
            precision_sum += found / (r + 1)
    scores[f"map@{depth}"] = precision_sum / n_relevant if n_relevant else 0.0
    return {name: scores[name] for name in metric_names(cuts)}


def score_queries(
    queries: Sequence[Query], ranked: Mapping[str, Sequence[str]], ks: Iterable[int] = DEFAULT_KS
) -> dict[str, dict[str, float]]:
    """metric -> qid -> score for every query of `queries` (see the module docstring).

    `ranked[qid]` lists memory ids best first; a qid missing from `ranked` found nothing.
    Each list is cut at the largest k.
    """
    names = metric_names(ks)
    out: dict[str, dict[str, float]] = {m: {} for m in names}
    for q in queries:
        for metric, value in query_scores(q.relevant, ranked.get(q.qid, ()), ks).items():
            out[metric][q.qid] = value
    return out
