"""Graph: the causal graph around a memory (drawn, tabled), its lineage, supersession chain
and contradictions (a reflection also shows its sources and, when its evidence changed, why it
is flagged); and the store-wide contradictions queue and graph health.

Reading only: nothing here writes, so a read-only store needs nothing special. Other pages
open this one on a memory with `st.session_state["graph_focus"]` (widgets/graph/link.py).
"""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.state import show_error, store_and_choices
from memlens_app.widgets.graph.contradictions import contradictions_queue, focus_contradictions
from memlens_app.widgets.graph.controls import controls
from memlens_app.widgets.graph.data import (
    get_chain,
    get_contradictions,
    get_health,
    get_lineage,
    get_neighbourhood,
    memories,
    versions,
)
from memlens_app.widgets.graph.focus import focus_picker
from memlens_app.widgets.graph.health import health_panel
from memlens_app.widgets.graph.lineage import chain_panel, lineage_ids, lineage_panel
from memlens_app.widgets.graph.network import network, node_table
from memlens_app.widgets.graph.reflection import reflection_panel
from memory_core import CAUSAL, MemlensError, MemoryStore

st.header("Graph")
store, choices = store_and_choices()
if choices.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories yet; seed "
            f"the demo corpus from the Overview page.")
    st.stop()
stamp = versions(store)


def around_focus(store: MemoryStore) -> None:
    """The focus picker, the controls, the drawing and the panels about the focus."""
    focus = focus_picker(store)
    if focus is None:
        st.info("Find a memory by search or paste its id to see the graph around it; "
                "**Graph** on a Search result opens it here too.")
        return
    view = controls(focus)
    if view is None:
        return
    causal = tuple(r for r in CAUSAL if view.relations is None or r in view.relations)
    try:
        reflection_panel(store, focus)
        hood = get_neighbourhood(store.uri, store.tenant, stamp, view)
        chain = get_chain(store.uri, store.tenant, stamp, focus)
        story = (get_lineage(store.uri, store.tenant, stamp, focus, 3, causal)
                 if causal else None)
        pairs = get_contradictions(store.uri, store.tenant, stamp)
        known = memories(store, lineage_ids(story, chain) if story else list(chain.chain))
    except MemlensError as exc:
        show_error(exc)
        return
    drawing, side = st.columns([3, 2])
    with drawing:
        network(hood, view.limit)
    with side:
        lineage_tab, chain_tab, against_tab = st.tabs(
            ["Lineage", "Supersession", "Contradictions"])
        with lineage_tab:
            if story is None:
                st.caption("Lineage follows caused, enabled, supports and derived_from: "
                           "select one of them under Relations.")
            else:
                lineage_panel(story, known)
        with chain_tab:
            chain_panel(chain, known)
        with against_tab:
            focus_contradictions(pairs, focus)
    st.subheader("The neighbourhood as a table", anchor=False)
    node_table(store, hood)


around, queue, health = st.tabs(["Around a memory", "Contradictions queue", "Graph health"])
with around:
    around_focus(store)
with queue:
    try:
        contradictions_queue(get_contradictions(store.uri, store.tenant, stamp))
    except MemlensError as exc:
        show_error(exc)
with health:
    try:
        health_panel(store, get_health(store.uri, store.tenant, stamp))
    except MemlensError as exc:
        show_error(exc)
