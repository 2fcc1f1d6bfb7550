"""The "open in graph" handover: any page opens the Graph page centred on a memory.

A page sets `st.session_state[GRAPH_FOCUS] = memory_id` and switches to the Graph page,
which takes the id once (it removes the key) as its focus.
"""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.routes import page_path

#: The handover key: a memory id for the Graph page to centre on.
GRAPH_FOCUS = "graph_focus"
GRAPH_PAGE = page_path("graph")


def open_in_graph(memory_id: str) -> None:
    """Switch to the Graph page centred on `memory_id` (ends this run)."""
    st.session_state[GRAPH_FOCUS] = memory_id
    st.switch_page(GRAPH_PAGE)


def graph_button(memory_id: str, *, key: str, label: str = "Graph") -> None:
    """A button that opens the Graph page on `memory_id`."""
    if st.button(label, key=key, icon=":material/hub:",
                 help="Open this memory in the Graph page: its neighbourhood, lineage, "
                      "supersession chain and contradictions"):
        open_in_graph(memory_id)
