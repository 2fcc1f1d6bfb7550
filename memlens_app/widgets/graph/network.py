"""The drawing of a neighbourhood and the same memories as a table; a row opens the memory
(its content and fields) with a button to centre the graph on it."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import cells, md
from memlens_app.widgets.common.result_cards import field_rows
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.graph.data import get_html, short
from memlens_app.widgets.graph.focus import refocus
from memory_core import MemlensError, MemoryStore, Neighbourhood, memory_doc, visible

HEIGHT = 600


def network(hood: Neighbourhood, limit: int) -> None:
    """The neighbourhood drawn (offline HTML, `neighbourhood_html`), and what the node cap
    left out."""
    st.caption(f"{len(hood.nodes)} memories, {len(hood.edges)} edges · hover a node or an "
               f"edge for details, drag to move, scroll to zoom")
    if hood.left_out:
        st.warning(f"{hood.left_out} more memories are within reach but left out above the "
                   f"cap of {limit} nodes: {md(hood.rule)}. Raise *Max nodes*, fewer hops or "
                   f"a higher minimum strength show the rest.")
    # st.iframe is what st.components.v1.html became (deprecated in this Streamlit): the
    # HTML runs in an iframe with the app's origin, hence every memory value escaped in it
    st.iframe(get_html(hood, HEIGHT), height=HEIGHT + 4)


def node_table(store: MemoryStore, hood: Neighbourhood) -> None:
    """The neighbourhood as a sortable table; selecting a row opens that memory."""
    rows = [{"focus": "★" if n.focus else "", "hops": n.hops, "type": n.memory_type,
             "status": n.status, "importance": n.importance,
             "composite": round(n.composite, 3), "created": n.created_at.date().isoformat(),
             "project": n.project or "", "agent": n.agent or "",
             "content": short(n.content, 100), "id": n.id} for n in hood.nodes]
    picked = st.dataframe(cells(rows), hide_index=True, key="graph_table",
                          on_select="rerun", selection_mode="single-row")
    selected = picked.selection.rows if picked is not None else []
    if not selected:
        st.caption("Select a row to open that memory.")
        return
    memory_id = hood.nodes[selected[0]].id
    try:
        memory = store.get(memory_id)
    except MemlensError as exc:
        show_error(exc)
        return
    with st.container(border=True):
        head, button = st.columns([4, 1], vertical_alignment="center")
        head.markdown(f"**{md(memory.memory_type)}** · {md(memory.status)} · id {md(memory.id)}")
        button.button("Centre here", key="graph_centre", on_click=refocus, args=(memory.id,),
                      disabled=memory.id in hood.focus)
        st.text(visible(memory.content))
        st.dataframe(field_rows(memory_doc(memory), {"kind", "content"}), hide_index=True,
                     key="graph_fields")
