"""Turning graph expansion hits into candidates that honour the search filter.

A memory reached through the graph is kept only if it matches the filter (tenant, project,
type, status, ...). A superseded memory the filter does not ask for is replaced by its
successor (following `supersedes` edges) when the successor matches, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from memory_core.causal.expansion import GraphHit, successor
from memory_core.model.filters import Filter
from memory_core.model.records import Edge
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class GraphCandidate:
    """A graph hit as a candidate: the memory to show and the superseded one it replaces."""

    doc_id: str
    hit: GraphHit
    replaces: str | None = None


def _matching(store: MemoryStore, flt: Filter, ids: Sequence[str]) -> set[str]:
    if not ids:
        return set()
    return store.ids(replace(flt, ids=list(ids)))


def resolve_graph_hits(
    store: MemoryStore, hits: Sequence[GraphHit], flt: Filter,
    adjacency: Mapping[str, Sequence[Edge]],
) -> list[GraphCandidate]:
    """Graph hits in order, filtered, superseded ones swapped for their successors."""
    ids = [h.doc_id for h in hits]
    allowed = _matching(store, flt, ids)
    successors = {}
    if "superseded" not in flt.statuses():
        for doc_id in ids:
            if doc_id not in allowed:
                newer = successor(doc_id, adjacency)
                if newer is not None:
                    successors[doc_id] = newer
    allowed_successors = _matching(store, flt, sorted(set(successors.values())))
    out: list[GraphCandidate] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.doc_id in allowed:
            doc_id, replaces = hit.doc_id, None
        elif (successors.get(hit.doc_id) in allowed_successors
              and successors[hit.doc_id] != hit.seed_id):
            # (a seed walking to its own predecessor earns no graph credit for itself)
            doc_id, replaces = successors[hit.doc_id], hit.doc_id
        else:
            continue
        if doc_id not in seen:
            seen.add(doc_id)
            out.append(GraphCandidate(doc_id, hit, replaces))
    return out
