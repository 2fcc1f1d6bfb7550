"""Retrieval metrics per query, computed by ranx (Bassani, ECIR 2022).

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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memory_core.errors import InvalidConfigError
from memory_core.evaluation.queryset import Query
from memory_core.untrusted import shown

#: Metrics computed at every k, in display order.
AT_K = ("recall", "precision", "hit_rate", "ndcg")
#: Metrics computed over the whole ranked list (depth = the largest k).
OVER_LIST = ("mrr", "map")
DEFAULT_KS = (5, 10)
#: A document id no memory has (memlens ids are uuids or "<prefix>-<hash>" strings).
NO_HIT = "memlens:no-hit"


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
    """Metric names in display order, as ranx spells them.

    >>> metric_names((5, 10))[:3]
    ('recall@5', 'recall@10', 'precision@5')
    >>> metric_names((5, 10))[-2:]
    ('mrr@10', 'map@10')
    """
    cuts = check_ks(ks)
    return tuple(f"{m}@{k}" for m in AT_K for k in cuts) + tuple(
        f"{m}@{cuts[-1]}" for m in OVER_LIST)


def qrels_of(queries: Sequence[Query]) -> dict[str, dict[str, int]]:
    """qid -> {memory id: grade}, the relevance judgements of a query set."""
    return {q.qid: dict(q.relevant) for q in queries}


def ranx_run(qids: Sequence[str], ranked: Mapping[str, Sequence[str]], depth: int, *,
             name: str | None = None) -> Any:
    """A ranx `Run` holding every qid (empty when it found nothing), each list cut at `depth`.

    ranx orders a run by score, so the scores given to it are derived from the rank
    (depth - rank): search's order is kept exactly, ties in search score included.
    """
    from ranx import Run

    run: dict[str, dict[str, float]] = {}
    for qid in qids:
        ids = list(dict.fromkeys(ranked.get(qid, ())))[:depth]  # a repeated id counts once
        run[qid] = {memory_id: float(depth - r) for r, memory_id in enumerate(ids)}
    if qids and not any(run.values()):
        # ranx cannot build a run in which no query retrieved anything (wrong store, tenant
        # or filter); one never-relevant placeholder changes no metric: every one is 0.
        run[qids[0]] = {NO_HIT: 0.0}
    return Run(run, name=name)


def score_queries(
    queries: Sequence[Query], ranked: Mapping[str, Sequence[str]], ks: Iterable[int] = DEFAULT_KS
) -> dict[str, dict[str, float]]:
    """metric -> qid -> score for every query of `queries` (see the module docstring).

    `ranked[qid]` lists memory ids best first; a qid missing from `ranked` found nothing.
    Each list is cut at the largest k.
    """
    from ranx import Qrels, evaluate

    names = metric_names(ks)
    if not queries:
        return {m: {} for m in names}
    qids = [q.qid for q in queries]
    run = ranx_run(qids, ranked, check_ks(ks)[-1])
    evaluate(Qrels(qrels_of(queries)), run, list(names), make_comparable=True)
    return {m: {qid: float(run.scores[m][qid]) for qid in qids} for m in names}
