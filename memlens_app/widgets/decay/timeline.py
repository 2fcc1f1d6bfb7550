"""One memory's timeline: its events (created, recalls, cites, corrections, edges, status
changes) as a table, and its composite and R over time with a marker for each event.

The memory comes from the id box, from **Show its timeline** in the at-risk table, or from
another page: it sets `st.session_state["decay_focus"] = memory_id` and switches to
`page_scripts/decay.py`, which takes the id once (it removes the key) and opens this tab.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import badges, cells
from memlens_app.widgets.decay.controls import Controls
from memlens_app.widgets.graph.link import graph_button
from memory_core import Memory, Timeline, timeline_chart, visible

#: The handover key: a memory id for the Decay page to show the timeline of.
DECAY_FOCUS = "decay_focus"
TAB_KEY, TIMELINE_TAB = "decay_tab", "One memory"
ID_KEY, PICK_KEY, HORIZON_KEY = "decay_memory_id", "decay_pick", "decay_horizon"
PICK_LIMIT = 200


def show_timeline(memory_id: str) -> None:
    """Open `memory_id`'s timeline (a callback, or before the tabs are drawn)."""
    st.session_state[ID_KEY] = memory_id
    st.session_state[TAB_KEY] = TIMELINE_TAB


def take_handover() -> None:
    """Move an id handed over in `DECAY_FOCUS` into the id box and open its tab."""
    memory_id = st.session_state.pop(DECAY_FOCUS, None)
    if memory_id is not None:
        show_timeline(str(memory_id))


def _picked() -> None:
    picked = st.session_state.get(PICK_KEY)
    if picked:
        st.session_state[ID_KEY] = picked


def timeline_picker(risk: pl.DataFrame | None) -> tuple[str | None, int]:
    """The memory id (typed, picked among those at risk, or handed over) and how many days
    past the clock to project; None while there is no id."""
    id_col, pick_col, horizon_col = st.columns([2, 3, 1.5], vertical_alignment="bottom")
    typed = id_col.text_input("Memory id", key=ID_KEY, placeholder="a memory id")
    if risk is not None and not risk.is_empty():
        shown = risk.head(PICK_LIMIT)
        labels = {r["id"]: visible(f"{r['memory_type']} · {' '.join(r['content'].split())[:70]}")
                  for r in shown.select("id", "memory_type", "content").iter_rows(named=True)}
        pick_col.selectbox(f"Or one of the {len(labels)} most at risk", list(labels),
                           index=None, key=PICK_KEY, format_func=labels.__getitem__,
                           on_change=_picked, placeholder="pick a memory at risk")
    horizon = horizon_col.number_input("Days ahead", 7, 730, 90, step=30, key=HORIZON_KEY,
                                       help="How far past the decay clock to project the "
                                            "curve, with no further access")
    return typed.strip() or None, int(horizon)


def _falls_below(timeline: Timeline, threshold: float) -> str:
    if timeline.never_decays:
        return "never"
    curve = timeline.curve
    now = curve.filter(pl.col("at") <= timeline.as_of).tail(1)
    if now.height and float(now["composite"][0]) < threshold:
        return "already"
    ahead = curve.filter((pl.col("at") > timeline.as_of) & (pl.col("composite") < threshold))
    if ahead.height:
        return f"{ahead['at'][0]:%Y-%m-%d}"
    return f"not by {curve['at'][-1]:%Y-%m-%d}" if curve.height else "—"


def _at_clock(timeline: Timeline, column: str) -> str:
    now = timeline.curve.filter(pl.col("at") <= timeline.as_of).tail(1)
    return f"{float(now[column][0]):.3f}" if now.height else "—"


def timeline_view(memory: Memory, timeline: Timeline, ctl: Controls) -> None:
    """The memory in short, four numbers, the chart and the events table."""
    head, graph = st.columns([5, 1], vertical_alignment="center")
    head.markdown(badges([("blue", memory.memory_type), ("violet", memory.importance),
                          ("gray" if memory.status == "active" else "red", memory.status),
                          ("green", memory.project)]))
    with graph:
        graph_button(memory.id, key="decay_graph", label="Open in graph")
    st.text(visible(memory.content))
    if timeline.never_decays:
        st.info("Constitutional: this memory never decays (every factor is 1), so it is "
                "never at risk.")
    kinds = [e.kind for e in timeline.events]
    cols = st.columns(5)
    cols[0].metric("Composite at the clock", _at_clock(timeline, "composite"))
    cols[1].metric("R at the clock", _at_clock(timeline, "retrievability"))
    cols[2].metric("Recalls", kinds.count("recall"))
    cols[3].metric("Cites", kinds.count("cite"))
    cols[4].metric(f"Below {ctl.threshold:g} on", _falls_below(timeline, ctl.threshold))
    st.plotly_chart(timeline_chart(timeline, threshold=ctl.threshold), key="decay_timeline")
    st.caption("Recalls reset R to 1; a cite raises the composite for the citation window; "
               "after the decay clock the curve assumes nobody recalls it again.")
    if not timeline.events:
        st.caption("No events.")
        return
    st.dataframe(cells([{"at": e.at, "event": e.kind, "detail": e.detail,
                         "actor": e.actor or "", "resets R": e.resets}
                        for e in reversed(timeline.events)]),
                 hide_index=True, key="decay_events",
                 column_config={"at": st.column_config.DatetimeColumn(
                     "at", format="YYYY-MM-DD HH:mm")})
