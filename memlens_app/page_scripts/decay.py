"""Decay: which memories the agents are forgetting, when the rest will follow, and what other
decay parameters would change; one memory's history; a query ranked with and without decay.

Reading only: the what-if sliders never write, so a read-only store needs nothing special.
Every number is computed for the decay clock's day, so a review can be repeated. Other pages
open one memory's timeline with `st.session_state["decay_focus"]` (widgets/decay/timeline.py).
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.search_filters import filter_panel, filter_summary
from memlens_app.widgets.common.state import show_error, store_and_choices
from memlens_app.widgets.decay.controls import controls
from memlens_app.widgets.decay.curves import curves_panel
from memlens_app.widgets.decay.data import (
    get_at_risk,
    get_frame,
    get_impact,
    get_timeline,
    get_what_if,
    versions,
)
from memlens_app.widgets.decay.ranking import impact_inputs, impact_view
from memlens_app.widgets.decay.risk import narrowed, risk_inputs, risk_summary, risk_table
from memlens_app.widgets.decay.store import store_wide
from memlens_app.widgets.decay.timeline import (
    TAB_KEY,
    TIMELINE_TAB,
    take_handover,
    timeline_picker,
    timeline_view,
)
from memory_core import MemlensError, MemoryNotFoundError

TABS = ("Store-wide", "Curves", "At risk", TIMELINE_TAB, "Ranking impact")

st.header("Decay")
store, choices = store_and_choices()
if choices.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories yet; seed "
            f"the demo corpus from the Overview page.")
    st.stop()
take_handover()
ctl = controls()
flt = filter_panel(store, choices, key="decay")
st.caption(f"Filter: {filter_summary(flt)}")
stamp = versions(store)
owner = (store.uri, store.tenant, stamp, flt, ctl.as_of)
try:
    frame = get_frame(*owner, ctl.what_if, ctl.threshold)
except MemlensError as exc:
    show_error(exc)
    st.stop()
if frame.is_empty():
    st.info("No memory matches the filter: widen it (statuses, projects, types…) to see "
            "how they decay.")


def one_memory(risk: pl.DataFrame | None) -> None:
    """The timeline tab: the picker, then the memory's history and curve."""
    memory_id, horizon = timeline_picker(risk)
    if memory_id is None:
        st.info("Pick a memory: **Show its timeline** on a row of *At risk*, one of those "
                "at risk above, or paste its id.")
        return
    try:
        memory = store.get(memory_id)
        timeline = get_timeline(store.uri, store.tenant, stamp, memory_id, ctl.as_of,
                                ctl.what_if, horizon)
    except MemoryNotFoundError:
        st.warning(f"No memory {code(memory_id)} in tenant **{md(store.tenant)}**.")
        return
    except MemlensError as exc:
        show_error(exc)
        return
    timeline_view(memory, timeline, ctl)


def at_risk_tab() -> pl.DataFrame | None:
    """The at-risk tab; returns the memories at risk (None after an error)."""
    within, contains = risk_inputs()
    try:
        risk = get_at_risk(*owner, ctl.what_if, ctl.threshold, within)
    except MemlensError as exc:
        show_error(exc)
        return None
    if not frame.is_empty():
        risk_summary(frame, risk, ctl, within)
        risk_table(store, narrowed(risk, contains))
    return risk


def impact_tab() -> None:
    """The ranking-impact tab: a query, decay on and off."""
    query, config, limit = impact_inputs(ctl.what_if)
    if not query:
        st.info("Type a query to rank it with decay on and off.")
        return
    try:
        impact = get_impact(store.uri, store.tenant, stamp, query, config, flt, ctl.as_of,
                            limit)
    except MemlensError as exc:
        show_error(exc)
        return
    impact_view(impact, ctl)


# Keyed (which needs on_change) so that "Show its timeline" can open its tab; every tab still
# renders on each run, so the widgets in the others keep their values.
tabs = dict(zip(TABS, st.tabs(TABS, key=TAB_KEY, on_change="rerun"), strict=True))
with tabs["At risk"]:  # first: the timeline's picker lists the memories at risk
    at_risk = at_risk_tab()
with tabs["Store-wide"]:
    if not frame.is_empty():
        try:
            store_wide(frame, get_what_if(*owner, ctl.current, ctl.what_if, ctl.threshold),
                       ctl)
        except MemlensError as exc:
            show_error(exc)
with tabs["Curves"]:
    curves_panel(ctl)
with tabs[TIMELINE_TAB]:
    one_memory(at_risk)
with tabs["Ranking impact"]:
    impact_tab()
