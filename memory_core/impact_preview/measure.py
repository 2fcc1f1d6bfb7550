"""`impact(store, action, ...)`: what a curation batch would do to retrieval, before it runs.

The queries that matter (`memory_core.impact_preview.queries`: given ones, the store's saved query
set, else its recent recalls with what they sent as the relevant set) are searched on the
store as it is and on a scratch copy the batch has run on (`memory_core.impact_preview.scratch`);
the live store is only read.
Both sides use one embedder that embeds each query once, and one clock. The report holds
recall@k, nDCG@10 and MRR before and after with the paired test of `memlens eval
--compare` (`memory_core.evaluation.compare`), and every query whose top k changed, each
lost, gained or reordered memory with why (`memory_core.impact_preview.changes`).

    report = impact(store, "archive", ["m1"])
    report.rows()      # metric, before, after, delta, p_value, marker, wins, ties, losses
    report.changes     # QueryChange(qid, query, lost, gained, moved, deltas)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memory_core.curation.correct import correct
from memory_core.curation.preview import ACTIONS as PREVIEW_ACTIONS
from memory_core.curation.report import CurationReport
from memory_core.embedding.memo import MemoEmbedder
from memory_core.evaluation.compare import DEFAULT_ALPHA, Comparison, compare_results
from memory_core.evaluation.queryset import Query
from memory_core.evaluation.results import result_from_run
from memory_core.evaluation.runner import RetrievalRun, check_reachable, run_queries
from memory_core.impact_preview.changes import QueryChange, Reasons, query_change
from memory_core.impact_preview.queries import (
    GIVEN,
    SAVED,
    ImpactQueries,
    QueriesArg,
    impact_queries,
)
from memory_core.impact_preview.scratch import check_copyable, scratch_copy
from memory_core.model.errors import CurationError, EmbedderUnavailableError, InvalidConfigError
from memory_core.model.values import utcnow
from memory_core.retrieval.config import DEFAULT_PRESET, RankingConfig, preset
from memory_core.store import MemoryStore

Progress = Callable[[int], None]
#: nDCG is shown at 10 whatever k is (the issue's nDCG@10).
NDCG_AT = 10


def actions() -> dict[str, Callable[..., CurationReport]]:
    """The actions a preview can measure: every one `curation.preview` knows, and correct."""
    return {**PREVIEW_ACTIONS, "correct": correct}


def impact_steps(queries: int) -> int:
    """How many `progress` steps `impact` reports for `queries` queries: each query
    embedded, searched before and after, plus the copy and the batch."""
    return 3 * queries + 2


@dataclass(frozen=True, eq=False)  # frames inside do not compare with ==
class ImpactReport:
    """What a batch would do to retrieval. `batch` is the batch's report as it ran on the
    scratch copy (marked a preview: no batch id, the preview's notes, nothing written to
    the store); `comparison` is before (baseline) against after (candidate) on every
    metric; `metrics` the ones shown; `changes` the queries whose top k changed, the worst
    nDCG@10 regression first."""

    action: str
    k: int
    queries: ImpactQueries
    batch: CurationReport
    comparison: Comparison
    metrics: tuple[str, ...]
    changes: tuple[QueryChange, ...]
    notes: tuple[str, ...] = ()
    elapsed_s: float = 0.0

    def rows(self) -> list[dict[str, Any]]:
        """One dict per shown metric: metric, before, after, delta, p_value, marker, wins,
        ties, losses (wins: queries that score higher after)."""
        out = []
        for r in self.comparison.summary.iter_rows(named=True):
            if r["metric"] in self.metrics:
                out.append({"metric": r["metric"], "before": r["baseline"],
                            "after": r["candidate"], "delta": r["delta"],
                            "p_value": r["p_value"], "marker": r["marker"], "wins": r["wins"],
                            "ties": r["ties"], "losses": r["losses"]})
        return sorted(out, key=lambda r: self.metrics.index(r["metric"]))

    @property
    def stat_test(self) -> str:
        return self.comparison.stat_test

    def summary(self) -> str:
        """One line: how many queries changed, and the headline metric's move."""
        ndcg = next(r for r in self.rows() if r["metric"] == f"ndcg@{NDCG_AT}")
        return (f"{self.action}: {len(self.changes)} of {len(self.queries.queries)} queries "
                f"change their top {self.k}; nDCG@{NDCG_AT} {ndcg['before']:.3f} -> "
                f"{ndcg['after']:.3f} ({ndcg['delta']:+.3f})")

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` and notebooks."""
        return {"action": self.action, "k": self.k, "queries": len(self.queries.queries),
                "query_source": self.queries.source, "query_set": self.queries.path,
                "pseudo_relevance": self.queries.pseudo_relevance,
                "stat_test": self.stat_test, "alpha": self.comparison.alpha,
                "metrics": self.rows(), "changed": [c.to_dict() for c in self.changes],
                "batch": self.batch.to_dict(), "notes": list(self.notes),
                "summary": self.summary(), "elapsed_s": round(self.elapsed_s, 3)}


def _embed_once(memo: MemoEmbedder, queries: Sequence[Query], progress: Progress | None
                ) -> str | None:
    """Embed every query text once (in batches); why not, when the embedder cannot (both
    sides then search without vectors, the same way)."""
    try:
        memo.embed(list(dict.fromkeys(q.query for q in queries)), progress=progress)
    except EmbedderUnavailableError as exc:
        return f"queries searched without vectors on both sides: {exc}"
    return None


def _ids(run: RetrievalRun, qid: str, k: int) -> list[str]:
    return run.ids(qid)[:k]


def impact(store: MemoryStore, action: str, *args: Any,
           queries: QueriesArg = None, k: int = 10,
           progress: Progress | None = None, config: RankingConfig | None = None,
           stat_test: str = "student", alpha: float = DEFAULT_ALPHA,
           **kwargs: Any) -> ImpactReport:
    """Measure what `action(store, *args, **kwargs)` (any action `actions()` knows:
    archive, delete with or without purge, merge, consolidate, correct, undo, ...) would do
    to retrieval, without changing the store: see the module docstring.

    `queries`: a list, the path of a query set or `impact_queries(store, ...)` (default:
    the store's saved set, else its recent recalls); `k`: the cut-off of recall and of the
    listed results; `config`: the ranking config searched (default the default preset);
    `progress(n)` advances by `impact_steps(len(queries))` in all.

    >>> report = impact(store, "archive", ["m1"], queries="q.ndjson")  # doctest: +SKIP
    >>> report.rows()[0]["metric"]  # doctest: +SKIP
    'recall@10'
    """
    started = time.perf_counter()
    known = actions()
    if action not in known:
        raise CurationError(f"unknown curation action {action!r}; use one of: "
                            f"{', '.join(known)}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidConfigError(f"k must be an integer >= 1, got {k!r}")
    kwargs.pop("dry_run", None)
    run_action = known[action]
    planned = run_action(store, *args, dry_run=True, **kwargs)  # refuses a bad batch first
    check_copyable(store)
    chosen = impact_queries(store, queries)
    judged = chosen.source in (GIVEN, SAVED)
    if judged and action != "undo":  # an undo may bring the relevant memories back
        check_reachable(store, chosen.queries)
    qs = list(chosen.queries)
    cfg, now, depth = config or preset(DEFAULT_PRESET), utcnow(), max(k, NDCG_AT)
    ks = tuple(sorted({k, NDCG_AT}))
    versions = store.table_versions()
    notes: list[str] = []
    memo = MemoEmbedder(store.embedder)
    if (why := _embed_once(memo, qs, progress)) is not None:
        notes.append(why)
    # both sides are searched on the copy, before and after the batch: a search may write
    # (the full-text index is built on first use), and the live store must not change
    with store.guard.scratch("impact") as folder:
        side = scratch_copy(store, folder, memo)
        if progress is not None:
            progress(1)
        before = run_queries(side, qs, cfg, depth=depth, progress=progress, now=now,
                             keep_hits=False)
        # the copy is removed afterwards: a purge's verify_deleted run would say nothing
        extra = {"verify": False} if action == "delete" and kwargs.get("purge") else {}
        ran = run_action(side, *args, dry_run=False, **kwargs, **extra)
        if progress is not None:
            progress(1)
        after = run_queries(side, qs, cfg, depth=depth, progress=progress, now=now,
                            keep_hits=False)
        if judged and len(before.unreachable) == len(after.unreachable) == len(qs):
            check_reachable(side, qs)  # no relevant memory before or after: the wrong set
        found = _changes(store, side, ran, qs, before, after, k)
    cmp = compare_results(result_from_run(qs, before, ks=ks, name="before"),
                          result_from_run(qs, after, ks=ks, name="after"),
                          stat_test=stat_test, alpha=alpha)
    scored = [replace(c, deltas={m: cmp.candidate.scores[m][c.qid]
                                 - cmp.baseline.scores[m][c.qid] for m in _shown(k)})
              for c in found]
    # the worst regression on nDCG@10 first (stable: ties keep the query set's order)
    changes = tuple(sorted(scored, key=lambda c: c.deltas[f"ndcg@{NDCG_AT}"]))
    if store.table_versions() != versions:
        notes.append("the store was written by another process while the preview ran; "
                     "its 'before' may be older than the store now: preview again")
    # what ran on the copy (its created ids are those the changes name), told as a preview
    batch = replace(ran, dry_run=True, batch_id=None, versions={}, verification=None,
                    notes=planned.notes)
    return ImpactReport(action=action, k=k, queries=chosen, batch=batch, comparison=cmp,
                        metrics=_shown(k), changes=changes, notes=tuple(notes),
                        elapsed_s=time.perf_counter() - started)


def _shown(k: int) -> tuple[str, ...]:
    return (f"recall@{k}", f"ndcg@{NDCG_AT}", f"mrr@{max(k, NDCG_AT)}")


def _changes(live: MemoryStore, side: MemoryStore, batch: CurationReport,
             queries: Sequence[Query], before: RetrievalRun, after: RetrievalRun, k: int
             ) -> list[QueryChange]:
    """The queries whose top k differ, with why (read while the copy is still open)."""
    differ = [q for q in queries if _ids(before, q.qid, k) != _ids(after, q.qid, k)]
    ids = [i for q in differ for i in (*_ids(before, q.qid, k), *_ids(after, q.qid, k))]
    reasons = Reasons(live, side, batch, ids)
    out = []
    for q in differ:
        change = query_change(q.qid, q.query, _ids(before, q.qid, k), _ids(after, q.qid, k),
                              reasons, {})
        if change is not None:
            out.append(change)
    return out
