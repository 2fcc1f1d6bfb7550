"""`tune()`: choose ranking knobs for a store by k-fold cross-validation on its query set.

Every config of the grid (`SearchSpace.expand`: the base first) is run once on every query
and scored per query; the folds then choose and score on those values
(`memory_core.evaluation.tune_folds`), which is exact and costs no further searches.

    result = tune(store, load_queries("queries.ndjson"), folds=5, seed=0)
    result.tuned_mean, result.tuned_sd   # the tuning procedure on held-out folds
    result.base_mean, result.base_sd     # the base config on the same folds
    result.config                        # what to use: see `TuneResult.chosen`
    Path("tuned.json").write_text(result.to_json())  # memlens search/eval --config

The held-out numbers are what to believe: the chosen config's mean on all queries was picked
as the maximum of many means, so it flatters the config (the winner's curse).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_core.embedding.memo import MemoEmbedder
from memory_core.evaluation.metrics import metric_names, score_queries
from memory_core.evaluation.queryset import Query
from memory_core.evaluation.runner import Progress, check_reachable, run_queries
from memory_core.evaluation.tune_folds import Fold, assign_folds, best, cross_validate, spread
from memory_core.evaluation.tune_space import Candidate, SearchSpace, default_space
from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.retrieval.config import DEFAULT_PRESET, RankingConfig, preset

if TYPE_CHECKING:
    import polars as pl

    from memory_core.store import MemoryStore


def metric_cut(metric: str) -> int:
    """The k of a metric name such as "ndcg@10" (the search depth it needs); an unknown
    metric raises `InvalidConfigError` naming the valid forms.

    >>> metric_cut("recall@5")
    5
    """
    name, _, cut = metric.partition("@")
    if cut.isdigit() and int(cut) >= 1 and metric in metric_names((int(cut),)):
        return int(cut)
    forms = ", ".join(f"{m.split('@')[0]}@K" for m in metric_names((10,)))
    raise InvalidConfigError(f"unknown metric {shown(metric)}; use one of {forms} "
                             f"(K >= 1, e.g. ndcg@10)")


@dataclass(frozen=True, eq=False)
class TuneResult:
    """What `tune` measured: every config's per-query values, the folds, and the choice.

    `chosen` is the index of the config with the best mean on ALL queries, ties going to
    the base: cross-validation measures the procedure "pick the best config on these
    queries", and the config to ship is that procedure applied to every query (more data
    than any fold had). `chosen_in(i)` says how many folds chose config i as well, a sign
    of how stable the choice is; `folds[i].chosen` are the configs the held-out scores
    belong to. `values[i][qid]` is config i's `metric` on one query. `reasons` says why
    search ran degraded; `unreachable` names the queries none of whose relevant memories
    is in the tenant (0 under every config).
    """

    metric: str
    seed: int
    candidates: tuple[Candidate, ...]
    values: tuple[Mapping[str, float], ...]
    folds: tuple[Fold, ...]
    chosen: int
    skipped: int = 0
    skip_reasons: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()
    queries: int = 0
    now: datetime | None = None
    elapsed_s: float = 0.0

    @property
    def base(self) -> RankingConfig:
        """The config tuning started from (candidate 0)."""
        return self.candidates[0].config

    @property
    def config(self) -> RankingConfig:
        """The chosen config."""
        return self.candidates[self.chosen].config

    def mean(self, index: int) -> float:
        """Config `index`'s mean metric over every query (optimistic for the chosen one)."""
        values = self.values[index]
        return sum(values.values()) / len(values) if values else 0.0

    def chosen_in(self, index: int) -> int:
        """In how many folds config `index` was chosen."""
        return sum(f.chosen == index for f in self.folds)

    @property
    def tuned(self) -> tuple[float, float]:
        """(mean, sd) of the held-out fold scores of the configs the folds chose."""
        return spread([f.score for f in self.folds])

    @property
    def baseline(self) -> tuple[float, float]:
        """(mean, sd) of the base config's scores on the same held-out folds."""
        return spread([f.base_score for f in self.folds])

    @property
    def tuned_mean(self) -> float:
        """The tuning procedure's mean held-out score."""
        return self.tuned[0]

    @property
    def tuned_sd(self) -> float:
        """The sample standard deviation of its held-out fold scores."""
        return self.tuned[1]

    @property
    def base_mean(self) -> float:
        """The base config's mean score on the same held-out folds."""
        return self.baseline[0]

    @property
    def base_sd(self) -> float:
        """The sample standard deviation of the base's fold scores."""
        return self.baseline[1]

    def to_json(self) -> str:
        """The chosen config as `RankingConfig` JSON (`memlens search/eval --config`)."""
        return self.config.to_json()

    def to_frame(self) -> pl.DataFrame:
        """One row per config, best mean first: config (index), one column per knob, mean
        (all queries), folds (how many chose it), base, chosen."""
        import polars as pl

        rows = [{"config": c.index, **c.knobs,
                 "mean": self.mean(c.index), "folds": self.chosen_in(c.index),
                 "base": c.index == 0, "chosen": c.index == self.chosen}
                for c in self.candidates]
        return pl.DataFrame(rows).sort(["mean", "config"], descending=[True, False])

    def folds_frame(self) -> pl.DataFrame:
        """One row per fold: fold, queries (held out), config (chosen on the others), its
        label, train (its mean on the other folds), held_out, base (the base's held-out)."""
        import polars as pl

        return pl.DataFrame([{"fold": f.index + 1, "queries": len(f.held_out),
                              "config": f.chosen, "knobs": self.candidates[f.chosen].label,
                              "train": f.train_score, "held_out": f.score,
                              "base": f.base_score} for f in self.folds])

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` and notebooks."""
        return {"metric": self.metric, "seed": self.seed, "queries": self.queries,
                "folds": len(self.folds), "now": self.now,
                "tuned": dict(zip(("mean", "sd"), self.tuned, strict=True)),
                "base": dict(zip(("mean", "sd"), self.baseline, strict=True)),
                "chosen": {"config": self.chosen, "knobs": dict(self.candidates[self.chosen]
                                                                .knobs),
                           "mean": self.mean(self.chosen), "folds": self.chosen_in(self.chosen)},
                "ranking_config": self.config.to_dict(),
                "per_fold": self.folds_frame().to_dicts(), "configs": self.to_frame().to_dicts(),
                "skipped": self.skipped, "skip_reasons": list(self.skip_reasons),
                "reasons": list(self.reasons), "unreachable": list(self.unreachable),
                "elapsed_s": round(self.elapsed_s, 3)}


def _searching(store: MemoryStore) -> MemoryStore:
    """A shallow copy of `store` (same tables, only searched here) whose embedder embeds each
    query once for every config. Texts are embedded one at a time, as search does, so the
    vectors are exactly those of `memlens eval`."""
    import copy

    view = copy.copy(store)
    view.embedder = MemoEmbedder(store.embedder)
    return view


def check_tunable(store: MemoryStore, queries: Sequence[Query], folds: int) -> None:
    """Refuse what `tune` would refuse before any search: no queries, fewer queries than
    folds, repeated qids, no query with a relevant memory in the store's tenant."""
    if not queries:
        raise InvalidConfigError("tuning needs a query set with at least one query")
    assign_folds([q.qid for q in queries], folds, seed=0)  # raises for bad folds / qids
    check_reachable(store, queries)


def tune(
    store: MemoryStore,
    queries: Sequence[Query],
    *,
    space: SearchSpace | None = None,
    base: RankingConfig | None = None,
    folds: int = 5,
    seed: int = 0,
    metric: str = "ndcg@10",
    now: datetime | None = None,
    progress: Progress | None = None,
) -> TuneResult:
    """Search `space` (default `default_space(base)`) around `base` (default the `DEFAULT_PRESET`)
    on `queries` with `folds`-fold cross-validation of `metric`.

    Deterministic for a `seed` (it shuffles the queries into folds). `now` fixes the decay
    clock for every config (default: now). `progress(1)` is called after each search;
    there are `len(space.expand(base).candidates) * len(queries)` of them.
    """
    started = time.perf_counter()
    cut = metric_cut(metric)
    base = base or preset(DEFAULT_PRESET)
    grid = (space or default_space(base)).expand(base)
    check_tunable(store, queries, folds)
    now = now or utcnow()
    searching = _searching(store)
    values: list[Mapping[str, float]] = []
    reasons: dict[str, None] = {}
    unreachable: tuple[str, ...] = ()
    for candidate in grid.candidates:
        run = run_queries(searching, queries, candidate.config, depth=cut, progress=progress,
                          now=now, keep_hits=False)
        ranked = {qid: run.ids(qid) for qid in run.ranked}
        values.append(score_queries(queries, ranked, (cut,))[metric])
        reasons.update(dict.fromkeys(run.reasons))
        unreachable = run.unreachable  # the same for every config
    qids = [q.qid for q in queries]
    return TuneResult(
        metric=metric, seed=seed, candidates=grid.candidates, values=tuple(values),
        folds=cross_validate(values, assign_folds(qids, folds, seed)),
        chosen=best(values, qids), skipped=grid.skipped, skip_reasons=grid.reasons,
        reasons=tuple(reasons), unreachable=unreachable, queries=len(queries), now=now,
        elapsed_s=time.perf_counter() - started)
