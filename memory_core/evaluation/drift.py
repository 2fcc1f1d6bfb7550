"""Embedder drift: the same query set and config under two embedding models.

Each model gets a temporary copy of the store's tenant (memories of every status with their
access statistics, and every edge), re-embedded with that model, so vector search, BM25, the
graph and decay all see the same records; only the vectors differ. The original store is only
read. The copies live in a temporary folder that is removed afterwards.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from memory_core.embedding import Embedder
from memory_core.evaluation.compare import (
    DEFAULT_ALPHA,
    Comparison,
    check_stat_test,
    compare_results,
    distinct_names,
)
from memory_core.evaluation.metrics import DEFAULT_KS, check_ks
from memory_core.evaluation.queryset import Query
from memory_core.evaluation.results import EvalResult, evaluate_config
from memory_core.evaluation.runner import Progress
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.model.values import utcnow
from memory_core.retrieval.config import RankingConfig
from memory_core.store import MemoryStore


def copy_with_embedder(store: MemoryStore, embedder: Embedder, folder: Path, *,
                       progress: Progress | None = None) -> MemoryStore:
    """A new store in `folder` holding `store`'s tenant, every memory embedded by `embedder`.

    Only the store's own tenant is copied: a query whose filter names another tenant finds
    nothing in the copy. A model that cannot embed is an error, not a degraded copy.
    """
    copy = MemoryStore.open(str(folder), tenant=store.tenant, embedder=embedder,
                            read_only=False, create=True)
    memories = list(store.iter_memories(Filter(status=STATUSES)))  # without vectors
    report = copy.add(memories, dedup=False, action="import", progress=progress,
                      reason=f"drift copy of {store.uri} for {embedder.model_id}")
    if report.pending:
        raise EmbedderUnavailableError(
            f"{embedder.model_id} could not embed the copy of {store.uri}: "
            f"{report.embedding_error}")
    copy.edges.add(store.edges.list(include_inactive=True), check_endpoints=False,
                   reason="drift copy")
    return copy


def evaluate_embedders(
    store: MemoryStore,
    queries: Sequence[Query],
    config: RankingConfig,
    embedder_a: Embedder | None,
    embedder_b: Embedder,
    *,
    names: tuple[str, str] | None = None,
    ks: Iterable[int] = DEFAULT_KS,
    stat_test: str = "student",
    alpha: float = DEFAULT_ALPHA,
    progress: Progress | None = None,
    now: datetime | None = None,
    workdir: str | Path | None = None,
) -> Comparison:
    """Compare retrieval under two embedders: baseline `embedder_a`, candidate `embedder_b`.

    `embedder_a=None` means the store as it is (its own vectors, no copy). Names default to
    the models' ids. `progress` counts embedded memories, then evaluated queries. `workdir` is
    where the temporary copies go (default the system's temporary folder).

    >>> cmp = evaluate_embedders(store, queries, preset("hybrid"), None, other_model)
    ... # doctest: +SKIP
    """
    check_stat_test(stat_test)
    cuts = check_ks(ks)
    now = now or utcnow()
    first, second = distinct_names(*(names or (
        (embedder_a or store.embedder).model_id, embedder_b.model_id)))
    with tempfile.TemporaryDirectory(prefix="memlens-drift-", dir=workdir) as tmp:
        results: list[EvalResult] = []
        for label, embedder, name in (("a", embedder_a, first), ("b", embedder_b, second)):
            side = store if embedder is None else copy_with_embedder(
                store, embedder, Path(tmp) / label, progress=progress)
            results.append(evaluate_config(side, queries, config, name=name, ks=cuts,
                                           progress=progress, now=now))
    return compare_results(results[0], results[1], stat_test=stat_test, alpha=alpha)
