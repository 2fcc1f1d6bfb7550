"""Links from the Agents page to Curate and Graph: pick one of the memories shown, open it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from memlens_app.widgets.common.routes import page_path
from memlens_app.widgets.curate.source import CURATE_IDS
from memlens_app.widgets.graph.link import graph_button
from memory_core import visible

CURATE_PAGE = page_path("curate")


def _short(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def memory_links(ids: Sequence[str], contents: Mapping[str, str], *, key: str) -> None:
    """A picker of `ids` (with their content, when still in the store) and buttons that open
    the chosen memory in Curate or in Graph; a purged memory has nowhere to go."""
    if not ids:
        return
    pick, curate, graph = st.columns([4, 1, 1], vertical_alignment="bottom")
    with pick:
        chosen = st.selectbox(
            "Memory", list(ids), key=f"{key}_memory",
            format_func=lambda i: visible(f"{i} · {_short(contents[i])}" if i in contents
                                          else f"{i} · (no longer in the store)"))
    if chosen is None or chosen not in contents:
        return
    with curate:
        if st.button("Curate", key=f"{key}_curate", icon=":material/edit_note:",
                     help="Open this memory in the Curate page"):
            st.session_state[CURATE_IDS] = [chosen]
            st.switch_page(CURATE_PAGE)
    with graph:
        graph_button(chosen, key=f"{key}_graph")
