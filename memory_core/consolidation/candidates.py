"""`consolidation_candidates`: groups of related memories that no reflection consolidates
yet, strongest first, each with a rule-based draft; `get_candidate` finds one by its id.

The grouping (`grouping.py`) always runs over the tenant's whole eligible pool, so a
candidate's id does not depend on the filter it was listed under; a filter keeps the
candidates with at least one member it selects. A candidate's id is a digest of its members'
(id, content hash) pairs: a member's edit, or a member joining or leaving, makes another
candidate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_core.consolidation.drafts import GroupTerms, draft, group_terms
from memory_core.consolidation.grouping import GroupingParams, group
from memory_core.consolidation.pool import Pool, read_pool
from memory_core.consolidation.rejections import record_rejection, rejected_ids
from memory_core.consolidation.strength import strength
from memory_core.model.errors import CandidateNotFoundError
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore

#: `progress(stage, fraction)`, fraction of the whole call in [0, 1].
Progress = Callable[[str, float], None]
#: Each stage's share of a call, for the progress bar (comparing vectors costs most).
STAGES = {"reading memories": (0.0, 0.1), "comparing vectors": (0.1, 0.6),
          "grouping": (0.6, 0.75), "writing drafts": (0.75, 1.0), "done": (1.0, 1.0)}


def _overall(progress: Progress | None) -> Progress | None:
    """`progress` told each stage's fraction as a fraction of the whole call."""
    if progress is None:
        return None

    def report(stage: str, fraction: float) -> None:
        low, high = STAGES.get(stage, (0.0, 1.0))
        progress(stage, low + min(max(fraction, 0.0), 1.0) * (high - low))

    return report
#: Hex digits of a candidate id (64 bits: no two groups of a store share one).
ID_DIGITS = 16


@dataclass(frozen=True)
class Candidate:
    """A group of memories a reflection could consolidate."""

    id: str
    members: tuple[str, ...]  # memory ids, most central first
    cohesion: float  # mean cosine of the members to their centroid
    strength: float  # strength(len(members), cohesion)
    start: datetime
    end: datetime
    agents: tuple[str, ...]
    projects: tuple[str, ...]
    terms: tuple[str, ...]  # the group's distinctive terms, heaviest first
    draft: str  # rule-based draft: only text found in the members

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly fields (times as ISO 8601)."""
        return {"id": self.id, "members": list(self.members), "cohesion": self.cohesion,
                "strength": self.strength, "start": self.start.isoformat(),
                "end": self.end.isoformat(), "agents": list(self.agents),
                "projects": list(self.projects), "terms": list(self.terms),
                "draft": self.draft}


def candidate_id(pairs: Sequence[tuple[str, str]]) -> str:
    """The digest of the sorted (member id, content hash) pairs.

    >>> candidate_id([("b", "h2"), ("a", "h1")]) == candidate_id([("a", "h1"), ("b", "h2")])
    True
    """
    text = "\n".join(f"{i}\t{h}" for i, h in sorted(pairs))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:ID_DIGITS]


@dataclass(frozen=True)
class Group:
    """One group of the pool before it is written up: rows, most central first."""

    rows: np.ndarray
    centrality: np.ndarray
    cohesion: float
    strength: float
    id: str


def _groups(pool: Pool, params: GroupingParams, progress: Progress | None
            ) -> tuple[list[Group], np.ndarray]:
    """The pool's groups, strongest first (then by id), and each row's group (-1: none).
    Centroids, centralities and cohesions of all groups at once: one sparse product."""
    from scipy.sparse import csr_matrix

    parts = group(pool, params, progress=progress)
    labels = np.full(len(pool), -1, dtype=np.int64)
    if not parts:
        return [], labels
    rows = np.concatenate(parts)
    of = np.repeat(np.arange(len(parts)), [len(p) for p in parts])
    sizes = np.bincount(of)
    member = csr_matrix((np.ones(len(rows), dtype=np.float32), (of, rows)),
                        shape=(len(parts), len(pool)))
    centroid = np.asarray(member @ pool.unit, dtype=np.float64) / sizes[:, None]
    length = np.linalg.norm(centroid, axis=1)
    direction = np.divide(centroid, length[:, None], out=np.zeros_like(centroid),
                          where=length[:, None] > 0)
    central = np.einsum("ij,ij->i", pool.unit[rows].astype(np.float64), direction[of])
    cohesions = np.bincount(of, weights=central) / sizes  # the mean cosine to the centroid
    # within a group: most central first, then by id (the pool is in id order)
    order = np.lexsort((rows, -central, of))
    rows, central = rows[order], central[order]
    bounds = np.cumsum(sizes)[:-1]
    ids, hashes = pool.ids, pool.column("content_hash")
    out = []
    for g_rows, g_central, g_cohesion in zip(np.split(rows, bounds), np.split(central, bounds),
                                             cohesions.tolist(), strict=True):
        out.append(Group(g_rows, g_central, g_cohesion, strength(len(g_rows), g_cohesion),
                         candidate_id([(ids[r], hashes[r]) for r in g_rows])))
    out.sort(key=lambda g: (-g.strength, g.id))
    for at, g in enumerate(out):
        labels[g.rows] = at
    return out, labels


def _candidate(pool: Pool, g: Group, terms: GroupTerms, at: int) -> Candidate:
    """`g` written up (its index `at` in the terms' rows)."""
    ids, contents, agents, projects, created = (pool.column(name) for name in (
        "id", "content", "agent", "project", "created_at"))
    times = [created[r] for r in g.rows]
    top = terms.top(at)
    return Candidate(
        id=g.id, members=tuple(ids[r] for r in g.rows), cohesion=g.cohesion,
        strength=g.strength, start=min(times), end=max(times),
        agents=tuple(sorted({a for r in g.rows if (a := agents[r])})),
        projects=tuple(sorted({p for r in g.rows if (p := projects[r])})),
        terms=tuple(t for t, _ in top),
        draft=draft([contents[r] for r in g.rows], g.centrality.tolist(), top),
    )


def _admitted(pool: Pool, groups: list[Group], filter: Filter | None, tenant: str
              ) -> list[bool]:
    """Whether each group has a member `filter` selects (all do without a filter)."""
    if filter is None:
        return [True] * len(groups)
    rows = pool.table.select(list(filter.columns())).to_pylist()
    ok = filter.admits(rows, tenant)
    return [any(ok[r] for r in g.rows) for g in groups]


def consolidation_candidates(store: MemoryStore, filter: Filter | None = None, *,
                             limit: int | None = None, include_rejected: bool = False,
                             progress: Progress | None = None,
                             params: GroupingParams | None = None) -> list[Candidate]:
    """Groups of related active observations, events and learnings that no active
    reflection consolidates yet, strongest first (then by id).

    `filter` keeps the candidates with a member it selects; `limit` the first that many;
    rejected candidates (`reject`) are left out unless `include_rejected`.
    docs/guides/curation.md explains the grouping, the strength and the drafts.

    >>> [c.draft for c in consolidation_candidates(store, limit=3)]  # doctest: +SKIP
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise ValueError(f"limit must be a whole number >= 1, got {shown(limit)}")
    if filter is not None:
        filter.conditions(store.tenant)  # a bad filter is refused before any work
    progress = _overall(progress)
    if progress is not None:
        progress("reading memories", 0.0)
    pool = read_pool(store, filter.columns() if filter is not None else ())
    groups, labels = _groups(pool, params or GroupingParams(), progress)
    skip = set() if include_rejected else rejected_ids(store, pool)
    admitted = _admitted(pool, groups, filter, store.tenant)
    keep = [at for at, g in enumerate(groups) if admitted[at] and g.id not in skip][:limit]
    return _written(pool, groups, labels, keep, progress)


def _written(pool: Pool, groups: list[Group], labels: np.ndarray, keep: Sequence[int],
             progress: Progress | None) -> list[Candidate]:
    """The groups at `keep` written up as candidates."""
    if progress is not None:
        progress("writing drafts", 0.0)
    terms = group_terms(pool.column("content"), labels, len(groups)) if keep else None
    out = [_candidate(pool, groups[at], terms, at) for at in keep if terms is not None]
    if progress is not None:
        progress("done", 1.0)
    return out


def get_candidate(store: MemoryStore, candidate_id: str, *,
                  params: GroupingParams | None = None) -> Candidate:
    """The current candidate with this id, rejected or not; `CandidateNotFoundError` when
    there is none (a member changed, was consolidated or archived since)."""
    pool = read_pool(store)
    groups, labels = _groups(pool, params or GroupingParams(), None)
    found = [at for at, g in enumerate(groups) if g.id == candidate_id]
    if found:
        return _written(pool, groups, labels, found, None)[0]
    raise CandidateNotFoundError(
        f"no current consolidation candidate has id {shown(candidate_id)} in tenant "
        f"{shown(store.tenant)}: its members changed, were consolidated or archived since it "
        f"was listed; list the current ones with `memlens consolidate suggest`")


def reject(store: MemoryStore, candidate_id: str, *, reason: str | None = None) -> None:
    """Remember that the current candidate `candidate_id` was rejected (`reason` kept with
    it): `consolidation_candidates` leaves it out until one of its members changes
    (`rejections.py`). `CandidateNotFoundError` when no current candidate has the id;
    refused on a read-only store."""
    store.check_writable("rejecting a consolidation candidate")
    with store.writing("consolidate-reject"):
        found = get_candidate(store, candidate_id)
        record_rejection(store, found.members, found.id, reason=reason)
