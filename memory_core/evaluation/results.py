"""`EvalResult`: one config's metrics over a query set, as polars frames for pages and the CLI.

`per_query` has one row per query (file order): qid, query, tags, n_relevant, n_retrieved and
one column per metric. `summary` has one row per metric: config, metric, mean, std (sample),
ci_low, ci_high (a 95% Student-t interval of the mean, clipped to [0, 1]; null with fewer than
2 queries) and n.
`by_tag` has one row per (tag, metric): config, tag, metric, n, mean; a query with several
tags counts in each of them, untagged queries only in `summary`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_core.evaluation.metrics import DEFAULT_KS, check_ks, metric_names, score_queries
from memory_core.evaluation.query_warnings import QueryWarning
from memory_core.evaluation.queryset import Query
from memory_core.evaluation.runner import Progress, RetrievalRun, run_queries
from memory_core.retrieval.config import RankingConfig

if TYPE_CHECKING:
    import polars as pl

    from memory_core.store import MemoryStore

CONFIDENCE = 0.95


@dataclass(frozen=True, eq=False)  # frames do not compare with ==; identity does
class EvalResult:
    """One config evaluated on a query set: scores per query, means, breakdown by tag."""

    name: str
    ks: tuple[int, ...]
    metrics: tuple[str, ...]
    queries: tuple[Query, ...]
    scores: Mapping[str, Mapping[str, float]]  # metric -> qid -> score
    run: RetrievalRun
    per_query: pl.DataFrame
    summary: pl.DataFrame
    by_tag: pl.DataFrame

    @property
    def config(self) -> RankingConfig:
        return self.run.config

    @property
    def primary(self) -> str:
        """The headline metric: nDCG at the largest k."""
        return f"ndcg@{self.ks[-1]}"

    def mean(self, metric: str) -> float:
        """The mean of `metric` over every query of the set."""
        values = self.scores[metric].values()
        return sum(values) / len(values) if values else 0.0

    @property
    def warnings(self) -> tuple[QueryWarning, ...]:
        """The queries that retrieved nothing or have no relevant memory in the tenant, with
        why (see `memory_core.evaluation.query_warnings`), each marked with this config."""
        return tuple(replace(w, configs=(self.name,)) for w in self.run.warnings)

    def means(self) -> dict[str, float]:
        """metric -> mean, in display order."""
        return {m: self.mean(m) for m in self.metrics}

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` and notebooks (no hits)."""
        return {"name": self.name, "config": self.config.to_dict(), "ks": list(self.ks),
                "queries": len(self.queries), "summary": self.summary.to_dicts(),
                "by_tag": self.by_tag.to_dicts(), "per_query": self.per_query.to_dicts(),
                "reasons": list(self.run.reasons), "unreachable": list(self.run.unreachable),
                "warnings": [w.to_dict() for w in self.warnings]}


def _t_quantile(n: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.5 + CONFIDENCE / 2, n - 1))


def _summary_row(name: str, metric: str, values: Sequence[float]) -> dict[str, Any]:
    n = len(values)
    mean = sum(values) / n if n else 0.0
    row: dict[str, Any] = {"config": name, "metric": metric, "mean": mean, "std": None,
                           "ci_low": None, "ci_high": None, "n": n}
    if n >= 2:
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        half = _t_quantile(n) * std / math.sqrt(n)
        # every metric lies in [0, 1], so the interval is clipped there (a t-interval on few
        # queries can reach past 1, which no score can)
        row.update(std=std, ci_low=max(0.0, mean - half), ci_high=min(1.0, mean + half))
    return row


def summary_frame(name: str, metrics: Sequence[str],
                  scores: Mapping[str, Mapping[str, float]]) -> pl.DataFrame:
    """One row per metric: mean, sample std and the 95% t interval of the mean."""
    import polars as pl

    rows = [_summary_row(name, m, list(scores[m].values())) for m in metrics]
    return pl.DataFrame(rows, schema={"config": pl.String, "metric": pl.String,
                                      "mean": pl.Float64, "std": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})


def per_query_frame(queries: Sequence[Query], run: RetrievalRun, metrics: Sequence[str],
                    scores: Mapping[str, Mapping[str, float]]) -> pl.DataFrame:
    """One row per query: qid, query, tags, n_relevant, n_retrieved, then the metrics."""
    import polars as pl

    data: dict[str, Any] = {
        "qid": [q.qid for q in queries], "query": [q.query for q in queries],
        "tags": [list(q.tags) for q in queries],
        "n_relevant": [len(q.relevant) for q in queries],
        "n_retrieved": [len(run.ranked.get(q.qid, ())) for q in queries],
    }
    for m in metrics:
        data[m] = [scores[m][q.qid] for q in queries]
    schema: dict[str, Any] = {"qid": pl.String, "query": pl.String,
                              "tags": pl.List(pl.String), "n_relevant": pl.Int64,
                              "n_retrieved": pl.Int64}
    schema.update(dict.fromkeys(metrics, pl.Float64))
    return pl.DataFrame(data, schema=schema)


def tag_frame(per_query: pl.DataFrame, metrics: Sequence[str], name: str) -> pl.DataFrame:
    """One row per (tag, metric) with the number of queries and their mean score."""
    import polars as pl

    order = {m: i for i, m in enumerate(metrics)}
    long = (per_query.select("tags", *metrics)
            .unpivot(index="tags", on=list(metrics), variable_name="metric", value_name="score")
            .explode("tags").drop_nulls("tags").rename({"tags": "tag"}))
    out = (long.group_by("tag", "metric").agg(n=pl.len().cast(pl.Int64),
                                               mean=pl.col("score").mean())
           .with_columns(pl.lit(name, pl.String).alias("config"),
                         pl.col("metric").replace_strict(order, return_dtype=pl.Int64)
                         .alias("_order"))
           .sort("tag", "_order").drop("_order"))
    return out.select("config", "tag", "metric", "n", "mean")


def result_from_run(queries: Sequence[Query], run: RetrievalRun, *,
                    ks: Iterable[int] = DEFAULT_KS, name: str = "run") -> EvalResult:
    """Score a finished run (no store needed): the pure half of `evaluate_config`."""
    cuts = check_ks(ks)
    metrics = metric_names(cuts)
    ranked = {qid: run.ids(qid) for qid in run.ranked}
    scores = score_queries(queries, ranked, cuts)
    per_query = per_query_frame(queries, run, metrics, scores)
    return EvalResult(name=name, ks=cuts, metrics=metrics, queries=tuple(queries),
                      scores=scores, run=run, per_query=per_query,
                      summary=summary_frame(name, metrics, scores),
                      by_tag=tag_frame(per_query, metrics, name))


def evaluate_config(
    store: MemoryStore,
    queries: Sequence[Query],
    config: RankingConfig,
    *,
    name: str = "run",
    ks: Iterable[int] = DEFAULT_KS,
    progress: Progress | None = None,
    now: datetime | None = None,
) -> EvalResult:
    """Run `config` over `queries` against `store` (depth = the largest k) and score it.

    >>> result = evaluate_config(store, load_queries("q.ndjson"), preset("hybrid"))
    ... # doctest: +SKIP
    >>> result.summary  # doctest: +SKIP
    """
    cuts = check_ks(ks)
    run = run_queries(store, queries, config, depth=cuts[-1], progress=progress, now=now)
    return result_from_run(queries, run, ks=cuts, name=name)
