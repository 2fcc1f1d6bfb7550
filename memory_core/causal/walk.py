"""Walking the causal graph: `lineage` (what led to a memory, what it led to) and
`supersession_chain` (oldest -> current along `supersedes`).

Both read the tenant's active edges from the store's cached adjacency. Causal edges are
oriented cause -> effect (`CAUSAL`): `A caused B` and `A supports B` make A a cause of B,
`R derived_from O` makes O a cause of R. Each memory is reached once, by its shortest path
(the strongest among equally short ones); a path that would come back to a memory already on
it is a cycle: reported, not followed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from memory_core.causal.expansion import decayed
from memory_core.causal.model import (
    CAUSAL,
    Lineage,
    LineageFork,
    LineagePath,
    LineageStep,
    SupersessionChain,
)
from memory_core.model.errors import GraphError
from memory_core.model.records import Edge
from memory_core.model.schema import normalise_relation
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore

MAX_DEPTH = 6


def causal_relations(relations: Sequence[str] | None) -> tuple[str, ...]:
    """`relations` checked against the causal ones (aliases mapped); all of them for None."""
    if relations is None:
        return tuple(CAUSAL)
    out = []
    for relation in relations:
        canonical, _ = normalise_relation(relation)
        if canonical not in CAUSAL:
            raise GraphError(f"{shown(relation)} is not a causal relation; lineage follows "
                             f"{', '.join(CAUSAL)}")
        out.append(canonical)
    return tuple(dict.fromkeys(out))


def check_depth(depth: int, name: str = "depth") -> int:
    if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise GraphError(f"{name} must be a whole number from 1 to {MAX_DEPTH}, not "
                         f"{shown(depth)}")
    return depth


def orient(edge: Edge, relations: Sequence[str]) -> tuple[str, str] | None:
    """(cause, effect) of a causal edge among `relations`; None for any other edge."""
    if edge.relation not in relations:
        return None
    forward = CAUSAL[edge.relation]
    return (edge.source_id, edge.target_id) if forward else (edge.target_id, edge.source_id)


def _walk(focus: str, adjacency: Mapping[str, Sequence[Edge]], relations: Sequence[str],
          depth: int, now: datetime, *, up: bool
          ) -> tuple[list[LineagePath], list[tuple[str, ...]]]:
    """Breadth-first from `focus` towards causes (`up`) or effects; paths and cycles."""
    best: dict[str, LineagePath] = {}
    cycles: list[tuple[str, ...]] = []
    frontier: list[tuple[str, tuple[LineageStep, ...], tuple[str, ...], float]] = [
        (focus, (), (focus,), 1.0)]
    for hop in range(1, depth + 1):
        following = []
        for node, steps, nodes, strength in frontier:
            for edge in sorted(adjacency.get(node, ()), key=lambda e: e.id):
                ends = orient(edge, relations)
                if ends is None:
                    continue
                cause, effect = ends
                if (effect if up else cause) != node:
                    continue
                other = cause if up else effect
                if other in nodes:
                    cycle = nodes[nodes.index(other):] + (other,)
                    if not up:
                        cycle = tuple(reversed(cycle))
                    if not any(set(cycle) == set(c) for c in cycles):
                        cycles.append(tuple(cycle))
                    continue
                weight = decayed(edge, now)
                step = LineageStep(edge.id, edge.relation, cause, effect, float(edge.strength),
                                   weight)
                path = LineagePath(other, hop, (*steps, step), strength * weight)
                known = best.get(other)
                if known is not None and (known.hops < hop or known.strength >= path.strength):
                    continue
                best[other] = path
                following.append((other, path.steps, (*nodes, other), path.strength))
        frontier = [f for f in following if best[f[0]].steps == f[1]]
    paths = sorted(best.values(), key=lambda p: (p.hops, -p.strength, p.memory_id))
    return paths, cycles


def lineage(store: MemoryStore, memory_id: str, *, depth: int = 3,
            relations: Sequence[str] | None = None, as_of: datetime | None = None) -> Lineage:
    """What led to memory `memory_id` (ancestors) and what it led to (descendants), up to
    `depth` hops over the causal `relations`, with each path's decayed strength at `as_of`
    (now by default). An unknown id is a `MemoryNotFoundError`."""
    chosen = causal_relations(relations)
    check_depth(depth)
    store.get(memory_id)
    adjacency = store.edges.adjacency()
    now = as_of or utcnow()
    ancestors, up_cycles = _walk(memory_id, adjacency, chosen, depth, now, up=True)
    descendants, down_cycles = _walk(memory_id, adjacency, chosen, depth, now, up=False)
    # a dangling edge's missing end (graph_health reports those) is no memory to show
    reached = {i for p in (*ancestors, *descendants) for s in p.steps
               for i in (s.cause_id, s.effect_id)}
    present = set(store.get_many(sorted(reached))) | {memory_id}
    ancestors = [p for p in ancestors if all(s.cause_id in present and s.effect_id in present
                                             for s in p.steps)]
    descendants = [p for p in descendants if all(s.cause_id in present
                                                 and s.effect_id in present for s in p.steps)]
    cycles = list(up_cycles)
    cycles += [c for c in down_cycles if not any(set(c) == set(u) for u in up_cycles)]
    return Lineage(memory_id, depth, chosen, tuple(ancestors), tuple(descendants),
                   tuple(cycles))


def supersession_chain(store: MemoryStore, memory_id: str) -> SupersessionChain:
    """The `supersedes` chain through `memory_id`, oldest first, whichever member it is.

    Going back, a memory that superseded several (a merge) continues with the oldest of them;
    going forward, a memory superseded by several is a fork: reported, and the chain goes on
    with the newest successor. A cycle stops the walk and is reported."""
    store.get(memory_id)
    adjacency = store.edges.adjacency()
    older: dict[str, list[str]] = {}
    newer: dict[str, list[str]] = {}
    for edges in adjacency.values():
        for edge in edges:
            if edge.relation == "supersedes":
                older.setdefault(edge.source_id, []).append(edge.target_id)
                newer.setdefault(edge.target_id, []).append(edge.source_id)
    members, todo = {memory_id}, [memory_id]
    while todo:  # the memories linked to this one by supersedes, however far
        node = todo.pop()
        for other in (*older.get(node, ()), *newer.get(node, ())):
            if other not in members:
                members.add(other)
                todo.append(other)
    created = {i: m.created_at for i, m in store.get_many(sorted(members)).items()}

    def by_age(ids: list[str]) -> list[str]:
        return sorted(set(ids), key=lambda i: (created.get(i) or utcnow(), i))

    cycle = False
    start, seen = memory_id, {memory_id}
    while older.get(start):
        previous = by_age(older[start])[0]
        if previous in seen:
            cycle = True
            break
        seen.add(previous)
        start = previous
    chain, forks, seen = [start], [], {start}
    node = start
    while newer.get(node):
        successors = by_age(newer[node])
        if len(successors) > 1:
            forks.append(LineageFork(node, tuple(successors)))
        following = successors[-1]
        if following in seen:
            cycle = True
            break
        seen.add(following)
        chain.append(following)
        node = following
    return SupersessionChain(memory_id, tuple(chain), tuple(forks), cycle)
