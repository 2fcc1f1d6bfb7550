"""`graph_health`: what is wrong with a tenant's graph, each finding with the ids concerned."""

from __future__ import annotations

from collections import Counter

from memory_core.causal.model import CAUSAL, GraphHealth, HealthFinding
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore

#: The kinds of finding, in the order they are reported.
KINDS = ("orphans", "dangling_edges", "edges_to_inactive", "causal_cycles", "self_loops",
         "duplicate_edges", "superseded_without_successor", "evidence_changed")


def graph_health(store: MemoryStore) -> GraphHealth:
    """Orphans (active memories with no edge, counted by type), dangling edges (an end that
    is not a memory of the tenant: missing or hard-deleted), edges touching archived or
    superseded memories (a `supersedes` edge into the memory it superseded is expected and
    not counted), causal cycles (each strongly connected group of causally linked
    memories), self loops, duplicate edges (the same source, target and relation again) and
    superseded memories that no active `supersedes` edge points at; and reflections whose
    evidence changed (a source corrected, archived, superseded, deleted or purged since:
    `memory_core.consolidation.evidence`)."""
    import networkx as nx

    from memory_core.consolidation.evidence import evidence_changes

    rows = store.scan(["id", "status", "memory_type"], Filter(status=STATUSES))
    status = dict(zip(rows["id"].to_pylist(), rows["status"].to_pylist(), strict=True))
    types = dict(zip(rows["id"].to_pylist(), rows["memory_type"].to_pylist(), strict=True))
    edges = [e for e in store.edges.list() if e.status == "active"]
    touched = {i for e in edges for i in (e.source_id, e.target_id)}
    orphans = sorted(i for i, s in status.items() if s == "active" and i not in touched)
    dangling = sorted(e.id for e in edges
                      if e.source_id not in status or e.target_id not in status)
    inactive = sorted(
        e.id for e in edges
        if any(status.get(i) in ("archived", "superseded") for i in (e.source_id, e.target_id))
        and not (e.relation == "supersedes" and status.get(e.source_id) == "active"))
    causal = nx.DiGraph()
    for e in edges:
        if e.relation in CAUSAL and e.source_id != e.target_id:
            cause, effect = ((e.source_id, e.target_id) if CAUSAL[e.relation]
                             else (e.target_id, e.source_id))
            causal.add_edge(cause, effect)
    groups = sorted(sorted(c) for c in nx.strongly_connected_components(causal) if len(c) > 1)
    loops = sorted(e.id for e in edges if e.source_id == e.target_id)
    seen: dict[tuple[str, str, str], str] = {}
    duplicates = []
    for e in sorted(edges, key=lambda e: (e.created_at, e.id)):
        key = (e.source_id, e.target_id, e.relation)
        if key in seen:
            duplicates.append(e.id)
        else:
            seen[key] = e.id
    succeeded = {e.target_id for e in edges if e.relation == "supersedes"}
    stranded = sorted(i for i, s in status.items() if s == "superseded" and i not in succeeded)
    evidence = sorted(evidence_changes(store), key=lambda c: c.reflection_id)
    findings = (
        HealthFinding("orphans", "active memories with no edge", tuple(orphans),
                      {"by_type": dict(Counter(types[i] for i in orphans).most_common())}),
        HealthFinding("dangling_edges", "edges with an end that is not a memory of the tenant "
                                        "(missing or hard-deleted)", tuple(dangling)),
        HealthFinding("edges_to_inactive", "edges touching an archived or superseded memory "
                                           "(beyond the supersedes edge into it)", tuple(inactive)),
        HealthFinding("causal_cycles", "memories caught in a causal cycle (each group listed)",
                      tuple(i for g in groups for i in g), {"groups": groups}),
        HealthFinding("self_loops", "edges from a memory to itself", tuple(loops)),
        HealthFinding("duplicate_edges", "edges repeating the source, target and relation of an "
                                         "older edge", tuple(duplicates)),
        HealthFinding("superseded_without_successor", "superseded memories no supersedes edge "
                                                      "points at", tuple(stranded)),
        HealthFinding("evidence_changed", "reflections whose sources were corrected, archived, "
                                          "superseded, deleted or purged since they were written",
                      tuple(c.reflection_id for c in evidence),
                      {"by_kind": dict(Counter(k for c in evidence for _, k in c.changes)
                                       .most_common()),
                       "reflections": [c.to_dict() for c in evidence]}),
    )
    return GraphHealth(len(status), len(edges), findings)
