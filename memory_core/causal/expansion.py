"""The causal graph over memories: PathRAG expansion and successors over the adjacency.

Expansion follows HADES's PathRAG caps (docs/design/retrieval.md): at most `hops` (H <= 2)
steps from the seeds, at most `fanout` (F <= 3) edges per node (strongest first), at most
`beam` (B <= 8) nodes kept per hop. Edge strength decays as
`strength * exp(-decay_rate * days_since_last_reinforced)` (docs/design/decay.md). Edges are
followed in both directions: "why" questions walk from a decision back to what caused it.

Retrieval expands its candidates with it, so it imports nothing else of `causal` (the rest
writes edges through curation, which searches): its own unit in tests/test_import_rules.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memory_core.decay import edge_strength
from memory_core.model.records import Edge
from memory_core.store.edges import build_adjacency

__all__ = ["GraphHit", "build_adjacency", "decayed", "expand", "successor"]


@dataclass(frozen=True)
class GraphHit:
    """A memory reached from a seed: its path score, hop count and the edges walked."""

    doc_id: str
    score: float
    hops: int
    seed_id: str
    path: tuple[str, ...]  # edge ids, seed first
    relations: tuple[str, ...]


def decayed(edge: Edge, now: datetime) -> float:
    """The edge's strength decayed to `now`."""
    since = edge.last_reinforced or edge.created_at
    days = max(0.0, (now - since).total_seconds() / 86400.0)
    return edge_strength(edge.strength, edge.decay_rate, days)


def expand(
    seeds: Sequence[str],
    adjacency: Mapping[str, Sequence[Edge]],
    now: datetime,
    *,
    hops: int = 2,
    fanout: int = 3,
    beam: int = 8,
) -> list[GraphHit]:
    """Memories reached from `seeds` under the PathRAG caps, best path score first.

    A path's score is the product of its edges' decayed strengths. A seed is returned only
    when another seed reaches it (well-connected memories earn fusion's convergence bonus,
    docs/design/retrieval.md), never for reaching itself. Ties break by id, so the result is
    deterministic.
    """
    seen: set[str] = set()
    frontier = [GraphHit(s, 1.0, 0, s, (), ()) for s in seeds]
    found: list[GraphHit] = []
    for hop in range(1, hops + 1):
        best: dict[str, GraphHit] = {}
        for node in frontier:
            edges = sorted(adjacency.get(node.doc_id, ()),
                           key=lambda e: (-decayed(e, now), e.id))[:fanout]
            for edge in edges:
                other = edge.target_id if edge.source_id == node.doc_id else edge.source_id
                if other in seen or other == node.seed_id:
                    continue
                hit = GraphHit(other, node.score * decayed(edge, now), hop, node.seed_id,
                               (*node.path, edge.id), (*node.relations, edge.relation))
                if other not in best or hit.score > best[other].score:
                    best[other] = hit
        frontier = sorted(best.values(), key=lambda h: (-h.score, h.doc_id))[:beam]
        seen.update(h.doc_id for h in frontier)
        found.extend(frontier)
        if not frontier:
            break
    return sorted(found, key=lambda h: (-h.score, h.hops, h.doc_id))


def successor(doc_id: str, adjacency: Mapping[str, Sequence[Edge]], *, max_steps: int = 5
              ) -> str | None:
    """The memory that supersedes `doc_id` (following a chain of supersedes edges), if any."""
    current, steps = doc_id, 0
    while steps < max_steps:
        newer = sorted(e.source_id for e in adjacency.get(current, ())
                       if e.relation == "supersedes" and e.target_id == current)
        if not newer:
            break
        current, steps = newer[0], steps + 1
    return current if current != doc_id else None
