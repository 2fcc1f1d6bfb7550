"""The causal-graph explorer: lineage ("why"), supersession chains, contradictions,
neighbourhoods, graph health, and writing edges (docs/design/graph.md). No Streamlit here.

    lineage(store, id, *, depth=3, relations=CAUSAL, as_of=None) -> Lineage
    supersession_chain(store, id) -> SupersessionChain
    contradictions(store, filter=None, *, as_of=None) -> list[Contradiction]
    neighbourhood(store, ids, *, hops=1, relations=None, min_strength=0.0, since=None,
                  until=None, limit=200, include_inactive=False, as_of=None) -> Neighbourhood
    graph_health(store) -> GraphHealth
    link(store, source, relation, target, *, strength=1.0, evidence=(), reason=None,
         dry_run=False) -> CurationReport
    unlink(store, edge_id, *, reason=None, dry_run=False) -> CurationReport
    write_graph(store, path, *, format="graphml"|"json", filter=None) -> int (edges written)
"""

from memory_core.causal.contradictions import contradictions
from memory_core.causal.export import write_graph
from memory_core.causal.health import graph_health
from memory_core.causal.links import link, unlink
from memory_core.causal.model import (
    CAUSAL,
    Contradiction,
    ContradictionSide,
    GraphEdge,
    GraphHealth,
    GraphNode,
    HealthFinding,
    Lineage,
    LineageFork,
    LineagePath,
    LineageStep,
    Neighbourhood,
    SupersessionChain,
)
from memory_core.causal.neighbourhood import neighbourhood
from memory_core.causal.walk import lineage, supersession_chain

__all__ = [
    "CAUSAL", "Contradiction", "ContradictionSide", "GraphEdge", "GraphHealth", "GraphNode",
    "HealthFinding", "Lineage", "LineageFork", "LineagePath", "LineageStep", "Neighbourhood",
    "SupersessionChain",
    "contradictions", "graph_health", "lineage", "link", "neighbourhood", "supersession_chain",
    "unlink", "write_graph",
]
