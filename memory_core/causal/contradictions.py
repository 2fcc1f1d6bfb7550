"""`contradictions`: every active `contradicts` edge with both sides, the review queue."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from memory_core.causal.model import Contradiction, ContradictionSide
from memory_core.decay import composite
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore


def side(memory: Memory, now: datetime) -> ContradictionSide:
    """One side of a contradiction, with its decay composite at `now`."""
    return ContradictionSide(memory.id, memory.status, memory.created_at, memory.importance,
                memory.confidence, composite(memory, now).composite, memory.content)


def _strength(s: ContradictionSide) -> tuple[float, float]:
    return (s.composite, s.confidence if s.confidence is not None else 0.0)


def contradictions(store: MemoryStore, filter: Filter | None = None, *,
                   as_of: datetime | None = None) -> list[Contradiction]:
    """Each `contradicts` pair (active edges) with both sides' status, dates, importance,
    confidence and decay composite at `as_of`, and which side is newer and which stronger
    (composite, then confidence). Pairs where both sides are active come first (the review
    queue), newest first. With `filter`, pairs with at least one side it selects."""
    now = as_of or utcnow()
    edges = {e.id: e for edges in store.edges.adjacency().values() for e in edges
             if e.relation == "contradicts"}
    wanted = None
    if filter is not None:  # any status unless the filter names some
        wanted = store.ids(filter if filter.status is not None else
                           replace(filter, status=STATUSES))
        edges = {k: e for k, e in edges.items()
                 if e.source_id in wanted or e.target_id in wanted}
    ends = sorted({i for e in edges.values() for i in (e.source_id, e.target_id)})
    memories = store.get_many(ends)
    out = []
    for edge in edges.values():
        a, b = memories.get(edge.source_id), memories.get(edge.target_id)
        if a is None or b is None:
            continue  # a dangling edge: graph_health reports it
        if wanted is not None and a.id not in wanted and b.id not in wanted:
            continue
        sa, sb = side(a, now), side(b, now)
        newer = a.id if (a.created_at, a.id) >= (b.created_at, b.id) else b.id
        stronger = a.id if _strength(sa) >= _strength(sb) else b.id
        out.append(Contradiction(edge.id, sa, sb, a.status == b.status == "active", newer,
                                 stronger))
    out.sort(key=lambda c: (not c.both_active,
                            -max(c.a.created_at, c.b.created_at).timestamp(), c.edge_id))
    return out
