"""Comparing two configs on the same query set: deltas, paired significance, wins and losses.

The p-values are the tests ranx's `compare` offers (Bassani, ECIR 2022), computed with scipy
and numpy (ranx's numba code compiles for seconds in every process): "student" is the
two-sided paired t-test over queries (the default, `scipy.stats.ttest_rel`), "fisher" Fisher's
paired randomisation test (Smucker et al., CIKM 2007: 1000 random swaps of each query's two
scores, seed 42, so a run repeats its p-value), "tukey" Tukey's HSD (`scipy.stats.tukey_hsd`),
which treats the two score lists as independent groups and so is usually less sensitive than
the paired tests. A
metric whose per-query scores are identical under both configs gets p = 1 (the t-test itself
is undefined there); with fewer than two queries the p-value is null.

Deltas are candidate - baseline, so a negative delta is a regression; a query is a win when
the candidate scores higher on that metric, a loss when lower, a tie when equal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_core.evaluation.metrics import DEFAULT_KS, check_ks
from memory_core.evaluation.query_warnings import QueryWarning, merge_warnings
from memory_core.evaluation.results import EvalResult, evaluate_config
from memory_core.evaluation.runner import Progress
from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.retrieval.config import RankingConfig

if TYPE_CHECKING:
    import polars as pl

    from memory_core.evaluation.queryset import Query
    from memory_core.store import MemoryStore

STAT_TESTS = ("student", "fisher", "tukey")
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True, eq=False)  # frames do not compare with ==; identity does
class Comparison:
    """A candidate config against a baseline on one query set.

    `summary`: one row per metric (metric, baseline, candidate, delta, p_value, significant,
    marker "*" when p < alpha, wins, ties, losses). `per_query`: one row per (query, metric)
    (qid, query, tags, metric, baseline, candidate, delta, outcome win/tie/loss), metrics in
    display order and, within each, the worst regression first. `by_tag`: one row per
    (tag, metric) (tag, metric, n, baseline, candidate, delta), worst delta first.
    """

    baseline: EvalResult
    candidate: EvalResult
    stat_test: str
    alpha: float
    summary: pl.DataFrame
    per_query: pl.DataFrame
    by_tag: pl.DataFrame

    @property
    def names(self) -> tuple[str, str]:
        return self.baseline.name, self.candidate.name

    @property
    def metrics(self) -> tuple[str, ...]:
        return self.baseline.metrics

    @property
    def primary(self) -> str:
        """The headline metric: nDCG at the largest k."""
        return self.baseline.primary

    @property
    def warnings(self) -> tuple[QueryWarning, ...]:
        """Both configs' query warnings as one list in query order; `configs` on each says
        whether it happened under one config or both."""
        return merge_warnings([(r.name, r.warnings) for r in (self.baseline, self.candidate)],
                              order=[q.qid for q in self.baseline.queries])

    @property
    def win_tie_loss(self) -> pl.DataFrame:
        """metric, wins, ties, losses (from the candidate's side)."""
        return self.summary.select("metric", "wins", "ties", "losses")

    def worst(self, n: int = 5, metric: str | None = None) -> pl.DataFrame:
        """The `n` queries that regressed most on `metric` (default the primary metric)."""
        import polars as pl

        metric = metric or self.primary
        return (self.per_query.filter((pl.col("metric") == metric) & (pl.col("delta") < 0))
                .head(n))

    def to_dict(self, *, worst: int = 5) -> dict[str, Any]:
        """Plain data for `--json` and notebooks (per-query scores are in each result)."""
        return {"baseline": self.baseline.name, "candidate": self.candidate.name,
                "stat_test": self.stat_test, "alpha": self.alpha, "primary": self.primary,
                "summary": self.summary.to_dicts(),
                "worst": self.worst(worst).select("qid", "query", "baseline", "candidate",
                                                  "delta").to_dicts(),
                "by_tag": self.by_tag.to_dicts(),
                "warnings": [w.to_dict() for w in self.warnings]}


def check_stat_test(name: str) -> str:
    """`name` if it is a known significance test; otherwise an error listing them."""
    if name not in STAT_TESTS:
        raise InvalidConfigError(f"unknown significance test {shown(name)}; use one of: "
                                 f"{', '.join(STAT_TESTS)}")
    return name


#: Fisher's randomisation test: how many random swaps, and the seed that makes them repeat.
FISHER_PERMUTATIONS = 1000
FISHER_SEED = 42


def fisher_randomisation(baseline: Sequence[float], candidate: Sequence[float], *,
                         permutations: int = FISHER_PERMUTATIONS, seed: int = FISHER_SEED
                         ) -> float:
    """The share of random relabellings (each query's two scores swapped or not, at random)
    whose difference of means is at least the observed one: Fisher's paired randomisation
    test, two-sided.

    >>> fisher_randomisation([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])  # 2 of 16 labellings
    0.126
    """
    import numpy as np

    diff = np.asarray(baseline, dtype=np.float64) - np.asarray(candidate, dtype=np.float64)
    signs = np.random.default_rng(seed).choice((-1.0, 1.0), size=(permutations, len(diff)))
    observed = abs(float(diff.sum()))
    # equal sums computed in another order may differ in the last bits
    extreme = np.abs(signs @ diff) >= observed - 1e-9 * max(1.0, observed)
    return float(extreme.mean())


def _p_value(stat_test: str, baseline: Sequence[float], candidate: Sequence[float]
             ) -> float:
    if stat_test == "fisher":
        return fisher_randomisation(baseline, candidate)
    from scipy.stats import ttest_rel, tukey_hsd

    if stat_test == "tukey":
        return float(tukey_hsd(baseline, candidate).pvalue[0, 1])
    return float(ttest_rel(baseline, candidate, alternative="two-sided").pvalue)


def p_values(baseline: EvalResult, candidate: EvalResult, *, stat_test: str = "student"
             ) -> dict[str, float | None]:
    """metric -> p-value of the chosen test between the two results (see the module doc)."""
    check_stat_test(stat_test)
    qids = [q.qid for q in baseline.queries]
    if len(qids) < 2:
        return {m: None for m in baseline.metrics}
    out: dict[str, float | None] = {}
    for m in baseline.metrics:
        a = [baseline.scores[m][q] for q in qids]
        b = [candidate.scores[m][q] for q in qids]
        if a == b:
            out[m] = 1.0
            continue
        p = _p_value(stat_test, a, b)
        out[m] = None if math.isnan(p) else p
    return out


def _check_pair(baseline: EvalResult, candidate: EvalResult) -> None:
    if [q.qid for q in baseline.queries] != [q.qid for q in candidate.queries]:
        raise InvalidConfigError("the two results were computed on different query sets; "
                                 "evaluate both configs on the same queries")
    if baseline.metrics != candidate.metrics:
        raise InvalidConfigError(f"the two results use different cut-offs ({baseline.ks} vs "
                                 f"{candidate.ks}); evaluate both with the same k")


def _outcome(delta: float) -> str:
    return "win" if delta > 0 else "loss" if delta < 0 else "tie"


def compare_results(baseline: EvalResult, candidate: EvalResult, *,
                    stat_test: str = "student", alpha: float = DEFAULT_ALPHA) -> Comparison:
    """Compare two results on the same query set (see `Comparison` for the frames)."""
    import polars as pl

    check_stat_test(stat_test)
    if not 0.0 < alpha < 1.0:
        raise InvalidConfigError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    _check_pair(baseline, candidate)
    metrics = baseline.metrics
    pvals = p_values(baseline, candidate, stat_test=stat_test)
    rows = []
    for m in metrics:
        a, b = baseline.scores[m], candidate.scores[m]
        outcomes = [_outcome(b[q.qid] - a[q.qid]) for q in baseline.queries]
        p = pvals[m]
        significant = p is not None and p < alpha
        rows.append({"metric": m, "baseline": baseline.mean(m), "candidate": candidate.mean(m),
                     "delta": candidate.mean(m) - baseline.mean(m), "p_value": p,
                     "significant": significant, "marker": "*" if significant else "",
                     "wins": outcomes.count("win"), "ties": outcomes.count("tie"),
                     "losses": outcomes.count("loss")})
    summary = pl.DataFrame(rows, schema={
        "metric": pl.String, "baseline": pl.Float64, "candidate": pl.Float64,
        "delta": pl.Float64, "p_value": pl.Float64, "significant": pl.Boolean,
        "marker": pl.String, "wins": pl.Int64, "ties": pl.Int64, "losses": pl.Int64})
    return Comparison(baseline=baseline, candidate=candidate, stat_test=stat_test,
                      alpha=alpha, summary=summary,
                      per_query=_per_query(baseline, candidate),
                      by_tag=_by_tag(baseline, candidate))


def _per_query(baseline: EvalResult, candidate: EvalResult) -> pl.DataFrame:
    import polars as pl

    rows = []
    for order, m in enumerate(baseline.metrics):
        for q in baseline.queries:
            a, b = baseline.scores[m][q.qid], candidate.scores[m][q.qid]
            rows.append({"qid": q.qid, "query": q.query, "tags": list(q.tags), "metric": m,
                         "baseline": a, "candidate": b, "delta": b - a,
                         "outcome": _outcome(b - a), "_order": order})
    schema: dict[str, Any] = {
        "qid": pl.String, "query": pl.String, "tags": pl.List(pl.String), "metric": pl.String,
        "baseline": pl.Float64, "candidate": pl.Float64, "delta": pl.Float64,
        "outcome": pl.String, "_order": pl.Int64}
    return pl.DataFrame(rows, schema=schema).sort("_order", "delta", "qid").drop("_order")


def _by_tag(baseline: EvalResult, candidate: EvalResult) -> pl.DataFrame:
    import polars as pl

    order = {m: i for i, m in enumerate(baseline.metrics)}
    a = baseline.by_tag.select("tag", "metric", "n", pl.col("mean").alias("baseline"))
    b = candidate.by_tag.select("tag", "metric", pl.col("mean").alias("candidate"))
    return (a.join(b, on=["tag", "metric"], how="inner")
            .with_columns((pl.col("candidate") - pl.col("baseline")).alias("delta"),
                          pl.col("metric").replace_strict(order, return_dtype=pl.Int64)
                          .alias("_order"))
            .sort("_order", "delta", "tag").drop("_order"))


def distinct_names(a: str, b: str) -> tuple[str, str]:
    """Two labels that differ (the same config compared with itself gets (a)/(b) suffixes)."""
    return (a, b) if a != b else (f"{a} (a)", f"{b} (b)")


def compare_configs(
    store: MemoryStore,
    queries: Sequence[Query],
    baseline: RankingConfig,
    candidate: RankingConfig,
    *,
    names: tuple[str, str] = ("baseline", "candidate"),
    ks: Iterable[int] = DEFAULT_KS,
    stat_test: str = "student",
    alpha: float = DEFAULT_ALPHA,
    progress: Progress | None = None,
    now: datetime | None = None,
) -> Comparison:
    """Evaluate both configs on `queries` (same clock for decay) and compare them.

    `progress(1)` is called once per query per config (2 x len(queries) in all).

    >>> cmp = compare_configs(store, queries, preset("hybrid"), preset("full"),
    ...                       names=("hybrid", "full"))  # doctest: +SKIP
    >>> cmp.summary  # doctest: +SKIP
    """
    check_stat_test(stat_test)
    cuts = check_ks(ks)
    now = now or utcnow()
    first, second = distinct_names(*names)
    a = evaluate_config(store, queries, baseline, name=first, ks=cuts, progress=progress,
                        now=now)
    b = evaluate_config(store, queries, candidate, name=second, ks=cuts, progress=progress,
                        now=now)
    return compare_results(a, b, stat_test=stat_test, alpha=alpha)
