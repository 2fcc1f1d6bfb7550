"""How well the grouping finds what a store's reflections consolidated: copy the tenant
without its reflections (and their edges), group the copy, and score the groups against
the removed `derived_from` source sets.

The scores are pairwise (Manning, Raghavan and Schutze, "Introduction to Information
Retrieval", 2008, section 16.3): over the pairs of memories that some reflection
consolidated, precision is the share of the pairs grouped together that one reflection
holds, recall the share of the pairs one reflection holds that are grouped together.
Memories no reflection consolidated are left out of the pairs (nothing says where they
belong), and so is a truth set's member the copy cannot group (archived, no vector). The
adjusted Rand index (Hubert and Arabie, 1985) compares the same memories' partitions, each
ungrouped memory a group of its own; truth sets that share a memory are joined first.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory_core.consolidation.grouping import GroupingParams, Progress, group
from memory_core.consolidation.pool import DERIVED_FROM, REFLECTION, read_pool
from memory_core.model.errors import CurationError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class Scores:
    """Pairwise precision, recall and F1 and the adjusted Rand index of the groups against
    the truth, with what they were measured on."""

    precision: float
    recall: float
    f1: float
    ari: float
    truth_sets: int
    labelled: int
    groups: int
    grouped: int
    seconds: float


def truth_sets(store: MemoryStore) -> list[set[str]]:
    """The sources (`derived_from` targets) of each active reflection of the tenant, one set
    per reflection that has any, in reflection id order."""
    reflections = store.ids(Filter(memory_type=REFLECTION))
    found: dict[str, set[str]] = {}
    table = store.edges.endpoint_table(with_relation=True)
    for source, target, relation in zip(table["source_id"].to_pylist(),
                                        table["target_id"].to_pylist(),
                                        table["relation"].to_pylist(), strict=True):
        if relation == DERIVED_FROM and source in reflections:
            found.setdefault(source, set()).add(target)
    return [found[r] for r in sorted(found)]


def copy_without_reflections(store: MemoryStore, folder: Path) -> MemoryStore:
    """A store in `folder` holding the tenant's memories (every status, vectors kept) but its
    reflections, and every edge that touches none of them."""
    copy = MemoryStore.open(str(folder), tenant=store.tenant, embedder=store.embedder,
                            read_only=False, create=True)
    memories = [m for m in store.iter_memories(Filter(status=STATUSES), with_vectors=True)
                if m.memory_type != REFLECTION]
    copy.add(memories, dedup=False, action="import", reason=f"copy of {store.uri} without "
             "its reflections, to score consolidation")
    kept = {m.id for m in memories}
    copy.edges.add([e for e in store.edges.list(include_inactive=True)
                    if e.source_id in kept and e.target_id in kept],
                   check_endpoints=False, reason="copy without reflections")
    return copy


def pair_scores(truth: Sequence[set[str]], groups: Sequence[Sequence[str]]) -> Scores:
    """`Scores` of `groups` against `truth` (both as sets of ids; `seconds` 0).

    >>> s = pair_scores([{"a", "b", "c"}], [["a", "b"], ["c", "x"]])
    >>> round(s.precision, 3), round(s.recall, 3)
    (1.0, 0.333)
    """
    from sklearn.metrics import adjusted_rand_score

    true_of: dict[str, int] = {}
    for at, members in enumerate(truth):
        for m in members:
            true_of.setdefault(m, at)
    # truth sets sharing a memory are one set for the partition
    parent = list(range(len(truth)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for at, members in enumerate(truth):
        for m in members:
            parent[root(at)] = root(true_of[m])
    labelled = sorted(true_of)
    group_of = {m: at for at, members in enumerate(groups) for m in members}
    n = len(labelled)
    truth_label = np.array([root(true_of[m]) for m in labelled])
    pred = np.array([group_of.get(m, -1 - k) for k, m in enumerate(labelled)])
    sets_of = {m: {at for at, members in enumerate(truth) if m in members} for m in labelled}
    tp = fp = fn = 0
    for a in range(n):
        for b in range(a + 1, n):
            same = bool(sets_of[labelled[a]] & sets_of[labelled[b]])
            together = pred[a] == pred[b]
            tp += same and together
            fp += together and not same
            fn += same and not together
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    ari = float(adjusted_rand_score(truth_label, pred)) if n else 0.0
    return Scores(float(precision), float(recall), float(f1), ari, len(truth), n, len(groups),
                  sum(len(g) for g in groups), 0.0)


def grouping_scores(store: MemoryStore, params: GroupingParams | None = None, *,
                    workdir: str | Path | None = None, progress: Progress | None = None
                    ) -> Scores:
    """Score the grouping on a copy of `store`'s tenant without its reflections against the
    sources those reflections had (the store is only read; the copy is removed after).

    On the demo store: `grouping_scores(demo_store())`; docs/guides/curation.md gives
    the figures.
    """
    truth = truth_sets(store)
    if not truth:
        raise CurationError(
            f"tenant {store.tenant!r} of {store.uri} has no active reflection derived_from "
            f"other memories, so there is nothing to score the grouping against; try it on "
            f"the demo store (`memlens --store DIR init` seeds one in DIR)")
    with tempfile.TemporaryDirectory(dir=workdir, prefix="memlens-consolidate-") as folder:
        copy = copy_without_reflections(store, Path(folder) / "store")
        started = time.perf_counter()
        pool = read_pool(copy)
        groups = group(pool, params, progress=progress)
        seconds = time.perf_counter() - started
    named = [[pool.ids[i] for i in g] for g in groups]
    available = set(pool.ids)
    scores = pair_scores([t & available for t in truth if t & available], named)
    return Scores(scores.precision, scores.recall, scores.f1, scores.ari, scores.truth_sets,
                  scores.labelled, scores.groups, scores.grouped, seconds)
