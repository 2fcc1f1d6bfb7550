"""Agents: what each agent did with the memory (recalls, remembers, cites, corrections) over
time, how each memory is used, and recall replay: why a past recall sent what it sent.

Reading only: nothing here writes (replay runs the query again without recording it).
"""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.agents.activity import activity_panel
from memlens_app.widgets.agents.replay import replay_panel
from memlens_app.widgets.agents.use import use_panel
from memlens_app.widgets.common.markup import md
from memlens_app.widgets.common.state import current_store, show_error
from memory_core import Activity, MemlensError, activity, past_recalls, visible

st.header("Agents")
try:
    store = current_store()
    act = activity(store)
    recalls = past_recalls(store)
except MemlensError as exc:
    show_error(exc)
    st.stop()
agents = act.actors()
st.caption(f"Tenant **{md(store.tenant)}**: {len(agents)} agents, {len(recalls)} recalls. "
           + (f"Agents: {md(', '.join(visible(a) for a in agents))}." if agents else ""))
activity_tab, use_tab, replay_tab = st.tabs(["Activity", "Memory use", "Recall replay"])
with activity_tab:
    chosen = st.multiselect("Agents", agents, key="agents_filter", format_func=visible)
    if chosen:
        act = Activity(tuple(e for e in act.entries if e.actor in chosen))
    activity_panel(act)
with use_tab:
    try:
        use_panel(store)
    except MemlensError as exc:
        show_error(exc)
with replay_tab:
    replay_panel(store, recalls)
