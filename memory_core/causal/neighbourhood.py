"""`neighbourhood`: the subgraph within a few hops of focus memories, as plain data."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory_core.causal.expansion import decayed
from memory_core.causal.model import GraphEdge, GraphNode, Neighbourhood
from memory_core.decay import composite
from memory_core.model.errors import GraphError, MemoryNotFoundError
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import normalise_relation
from memory_core.model.untrusted import shown
from memory_core.model.values import as_utc, utcnow
from memory_core.store import MemoryStore

MAX_HOPS = 3
CONTENT_CHARS = 200
RULE = ("kept the focus, then the memories nearest to it, joined by the strongest decayed "
        "edges first")


def _relations(relations: Sequence[str] | None) -> set[str] | None:
    if relations is None:
        return None
    return {normalise_relation(r)[0] for r in relations}


def _node(memory: Memory, now: datetime, *, focus: bool, hops: int) -> GraphNode:
    return GraphNode(memory.id, memory.memory_type, memory.project, memory.agent, memory.status,
                     memory.importance, composite(memory, now).composite, memory.created_at,
                     memory.content[:CONTENT_CHARS], focus, hops)


def _edge(edge: Edge, now: datetime) -> GraphEdge:
    return GraphEdge(edge.id, edge.source_id, edge.target_id, edge.relation,
                     float(edge.strength), decayed(edge, now), tuple(edge.evidence))


def neighbourhood(store: MemoryStore, ids: str | Sequence[str], *, hops: int = 1,
                  relations: Sequence[str] | None = None, min_strength: float = 0.0,
                  since: datetime | str | None = None, until: datetime | str | None = None,
                  limit: int = 200, include_inactive: bool = False,
                  as_of: datetime | None = None) -> Neighbourhood:
    """Memories within `hops` edges of `ids` (either direction) over `relations` (all when
    None) whose decayed strength at `as_of` is at least `min_strength`; memories created
    outside `since`..`until` and, unless `include_inactive`, archived or superseded ones are
    left out (the focus never is). Above `limit` nodes the nearest, most strongly joined are
    kept and `left_out` says how many were not."""
    focus = [ids] if isinstance(ids, str) else list(dict.fromkeys(ids))
    if not focus:
        raise GraphError("give at least one memory id to centre the graph on")
    if not isinstance(hops, int) or not 1 <= hops <= MAX_HOPS:
        raise GraphError(f"hops must be 1 to {MAX_HOPS}, not {shown(hops)}")
    if not isinstance(limit, int) or limit < 1:
        raise GraphError(f"the node limit must be at least 1, not {shown(limit)}")
    wanted = _relations(relations)
    now = as_of or utcnow()
    start, end = as_utc(since), as_utc(until)
    found = store.get_many(focus)
    missing = [i for i in focus if i not in found]
    if missing:
        raise MemoryNotFoundError(f"no memory with id {shown(missing[0])} in tenant "
                                  f"{shown(store.tenant)}; list ids with `memlens ls`")
    adjacency = store.edges.adjacency()
    reached: dict[str, tuple[int, float]] = {i: (0, 1.0) for i in focus}  # hops, strength
    kept_edges: dict[str, Edge] = {}
    frontier = list(focus)
    memories: dict[str, Memory] = dict(found)
    for hop in range(1, hops + 1):
        candidates: dict[str, float] = {}
        for node in frontier:
            for edge in adjacency.get(node, ()):
                if wanted is not None and edge.relation not in wanted:
                    continue
                weight = decayed(edge, now)
                if weight < min_strength:
                    continue
                kept_edges[edge.id] = edge
                other = edge.target_id if edge.source_id == node else edge.source_id
                if other not in reached:
                    candidates[other] = max(candidates.get(other, 0.0), weight)
        memories.update(store.get_many(sorted(set(candidates) - set(memories))))
        frontier = []
        for other, weight in candidates.items():
            memory = memories.get(other)
            if memory is None:
                continue  # a dangling end
            if not include_inactive and memory.status != "active":
                continue
            if (start and memory.created_at < start) or (end and memory.created_at > end):
                continue
            reached[other] = (hop, weight)
            frontier.append(other)
    order = sorted(reached, key=lambda i: (reached[i][0], -reached[i][1], i))
    kept = order[:max(limit, len(focus))]
    keep = set(kept)
    nodes = tuple(_node(memories[i], now, focus=i in focus, hops=reached[i][0]) for i in kept)
    # every edge joining two kept memories, those between the outermost ones included
    for node in kept:
        for edge in adjacency.get(node, ()):
            if ((wanted is None or edge.relation in wanted) and edge.source_id in keep
                    and edge.target_id in keep and decayed(edge, now) >= min_strength):
                kept_edges[edge.id] = edge
    edges = tuple(_edge(e, now) for e in sorted(kept_edges.values(), key=lambda e: e.id)
                  if e.source_id in keep and e.target_id in keep)
    left_out = len(order) - len(kept)
    return Neighbourhood(tuple(focus), nodes, edges, left_out, RULE if left_out else "")
