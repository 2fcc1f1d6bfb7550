"""The Agents page's activity panel: a plot over time, the sessions, and every entry."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memory_core import Activity, activity_chart

#: Bucket of the plot: the span of the activity decides it.
BUCKETS = (("1h", 2), ("1d", 60), ("1w", 10_000))


def _every(act: Activity) -> str:
    if not act.entries:
        return "1d"
    days = (act.entries[0].at - act.entries[-1].at).total_seconds() / 86400
    return next(every for every, most in BUCKETS if days <= most)


def activity_panel(act: Activity) -> None:
    """Recalls, remembers, cites and corrections per agent over time, then the tables."""
    if not act.entries:
        st.info("No agent activity yet: recalls (`memlens recall`, `memlens mcp`), "
                "remembers, cites and corrections show here as agents make them.")
        return
    st.plotly_chart(activity_chart(act.over_time(_every(act))), key="agents_plot")
    st.subheader("Sessions", anchor=False)
    st.dataframe(frame_cells(act.sessions_frame()), hide_index=True, key="agents_sessions")
    st.subheader("Everything agents did", anchor=False)
    st.caption("Newest first; a recall lists what it sent, best first.")
    st.dataframe(frame_cells(act.to_frame()), hide_index=True, key="agents_entries")
