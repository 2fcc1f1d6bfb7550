"""The causal-graph explorer: lineage ("why"), supersession chains, contradictions,
neighbourhoods, graph health, and writing edges (docs/design/graph.md). No Streamlit here.

    lineage(store, id, *, depth=3, relations=None (CAUSAL), as_of=None) -> Lineage
    supersession_chain(store, id) -> SupersessionChain
    contradictions(store, filter=None, *, as_of=None) -> list[Contradiction]
    neighbourhood(store, ids, *, hops=1, relations=None, min_strength=0.0, since=None,
                  until=None, limit=200, include_inactive=False, as_of=None) -> Neighbourhood
    graph_health(store) -> GraphHealth
    link(store, source, relation, target, *, strength=1.0, evidence=(), reason=None,
         dry_run=False) -> CurationReport
    unlink(store, edge_id, *, reason=None, dry_run=False) -> CurationReport
    write_graph(store, path, *, format="graphml"|"json", filter=None) -> int (edges written)

The names below load on first use (`__init__.pyi` lists them once, `lazy_loader` reads it),
so importing `memory_core.causal.expansion` from retrieval does not load curation.
"""

from __future__ import annotations

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
