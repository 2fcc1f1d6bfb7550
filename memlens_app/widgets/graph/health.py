"""Graph health: each kind of finding counted, and a drill-down to the memories or edges it
names (memory text escaped; a memory finding can go to the Curate page)."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import cells, md
from memlens_app.widgets.common.routes import page_path
from memlens_app.widgets.curate.source import CURATE_IDS
from memlens_app.widgets.graph.data import memories, short
from memory_core import GraphHealth, MemoryStore

#: Findings whose ids are edges; the others name memories.
EDGE_KINDS = frozenset({"dangling_edges", "edges_to_inactive", "self_loops",
                        "duplicate_edges"})
SHOWN = 500


def health_panel(store: MemoryStore, health: GraphHealth) -> None:
    """Counts of every finding and the ids of the one picked."""
    problems = sum(f.count for f in health.findings)
    cols = st.columns(3)
    cols[0].metric("Memories", health.memories)
    cols[1].metric("Active edges", health.edges)
    cols[2].metric("Ids in findings", problems)
    st.dataframe([{"finding": f.kind, "count": f.count, "what": f.description}
                  for f in health.findings], hide_index=True, key="graph_findings")
    found = [f for f in health.findings if f.count]
    if not found:
        st.success("Nothing to report: no orphan, dangling edge, cycle or loose end.")
        return
    kind = st.selectbox("Drill down", [f.kind for f in found], key="graph_finding",
                        format_func=lambda k: f"{k} ({health.finding(k).count})")
    finding = health.finding(kind)
    st.caption(md(finding.description))
    ids = finding.ids[:SHOWN]
    if kind in EDGE_KINDS:
        edges = {e.id: e for e in store.edges.list(include_inactive=True)}
        rows = [{"edge": i, "relation": edges[i].relation if i in edges else "",
                 "source": edges[i].source_id if i in edges else "",
                 "target": edges[i].target_id if i in edges else ""} for i in ids]
    else:
        known = memories(store, ids)
        rows = [{"memory": i, "type": known[i].memory_type if i in known else "",
                 "status": known[i].status if i in known else "",
                 "content": short(known[i].content, 100) if i in known else ""}
                for i in ids]
        by_type = finding.detail.get("by_type")
        if by_type:
            st.caption("By type: " + ", ".join(f"{md(t)} {n}" for t, n in by_type.items()))
        for group in finding.detail.get("groups", []):
            st.caption("Cycle group: " + ", ".join(md(short(i, 13)) for i in group))
    st.dataframe(cells(rows), hide_index=True, key=f"graph_drill_{kind}")
    if len(finding.ids) > SHOWN:
        st.caption(f"The first {SHOWN} of {finding.count} are listed.")
    if kind not in EDGE_KINDS and st.button(f"Curate these {min(finding.count, SHOWN)}",
                                            key="graph_health_curate"):
        st.session_state[CURATE_IDS] = list(ids)
        st.switch_page(page_path("curate"))
