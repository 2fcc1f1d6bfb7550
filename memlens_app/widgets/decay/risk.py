"""The at-risk table: memories not yet below the threshold that fall below it within N days
with no further access, most important first; a row opens the memory and its timeline.

Streamlit keeps a table's selection as row positions, so changing what the table lists
(the window, the text, or anything the rows depend on: the clock, the threshold, the
parameters, the filter, a write) clears the selection rather than let a position point at
another memory.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memlens_app.widgets.common.memory_detail import detail_view
from memlens_app.widgets.decay.controls import Controls
from memlens_app.widgets.decay.data import clipped
from memlens_app.widgets.decay.timeline import show_timeline
from memory_core import MemoryStore

TABLE_KEY, WITHIN_KEY, CONTAINS_KEY = "decay_risk_table", "decay_within", "decay_contains"
_RESET_KEY, _LISTED_KEY = "decay_risk_reset", "decay_risk_listed"
CONTENT_CHARS = 100


def clear_selection() -> None:
    """Select no row on the next render (a callback: the memory's **Close**)."""
    st.session_state[_RESET_KEY] = True


def risk_inputs() -> tuple[int, str]:
    """How many days ahead to look, and the text a listed memory must contain."""
    within_col, contains_col = st.columns([2, 3])
    within = within_col.slider("Falls below within (days)", 1, 365, 30, key=WITHIN_KEY,
                               help="Memories whose composite drops below the threshold "
                                    "within this many days after the decay clock, if nobody "
                                    "recalls them")
    contains = contains_col.text_input("Content or id contains", key=CONTAINS_KEY,
                                       placeholder="e.g. postgres")
    return int(within), contains.strip()


def narrowed(risk: pl.DataFrame, contains: str) -> pl.DataFrame:
    """The rows whose content or id contains `contains` (any case)."""
    if not contains:
        return risk
    needle = contains.lower()
    return risk.filter(pl.col("content").str.to_lowercase().str.contains(needle, literal=True)
                       | pl.col("id").str.to_lowercase().str.contains(needle, literal=True))


def _table(rows: pl.DataFrame) -> pl.DataFrame:
    return frame_cells(rows.select(
        clipped("content", CONTENT_CHARS), pl.col("memory_type").alias("type"),
        "importance", pl.col("composite").round(3),
        pl.col("falls_below_on").dt.date().alias("falls below on"),
        pl.col("days_to_threshold").round(1).alias("in days"),
        pl.col("access_count").alias("recalls"),
        pl.col("days_since").round(0).alias("days idle"), "project", "id"))


def risk_summary(frame: pl.DataFrame, risk: pl.DataFrame, ctl: Controls, within: int) -> None:
    """One line: how many are at risk, already below, and never decay."""
    never = int(frame["never_decays"].sum())
    below = int(((frame["composite"] < ctl.threshold) & ~frame["never_decays"]).sum())
    st.caption(f"{risk.height} memories fall below {ctl.threshold:g} within {within} days of "
               f"{ctl.as_of:%Y-%m-%d} unless recalled · {below} are below it already · "
               f"{never} constitutional memories never decay and are not listed"
               + (" · under the what-if parameters" if ctl.changed else ""))


def risk_table(store: MemoryStore, risk: pl.DataFrame) -> None:
    """The table (sortable by any column), and the memory of the row selected."""
    listed = tuple(risk["id"].to_list())
    if st.session_state.get(_LISTED_KEY) != listed:
        st.session_state[_LISTED_KEY] = listed
        st.session_state[_RESET_KEY] = True
    if st.session_state.pop(_RESET_KEY, False):
        st.session_state[TABLE_KEY] = {"selection": {"rows": [], "columns": [], "cells": []}}
    if risk.is_empty():
        st.info("No memory falls below the threshold in this window: widen it, raise the "
                "threshold or move the decay clock.")
        return
    top = max([1.0, *risk["composite"].drop_nulls().to_list()])
    event = st.dataframe(
        _table(risk), key=TABLE_KEY, on_select="rerun", selection_mode="single-row",
        hide_index=True, height=min(38 + 35 * risk.height, 420),
        column_config={
            "composite": st.column_config.ProgressColumn(
                "composite", format="%.3f", min_value=0.0,
                max_value=top),
            "content": st.column_config.TextColumn("content", width="large"),
            "falls below on": st.column_config.DateColumn("falls below on",
                                                          format="YYYY-MM-DD"),
            "in days": st.column_config.NumberColumn(
                "in days", help="days after the decay clock until it falls below"),
            "days idle": st.column_config.NumberColumn(
                "days idle", help="days since its last recall (or creation)"),
        })
    rows = [i for i in event.selection.rows if i < risk.height]
    if not rows:
        st.caption("Select a row to open that memory and its timeline.")
        return
    memory_id = str(risk["id"][rows[0]])
    st.button("Show its timeline", key="decay_risk_timeline", icon=":material/timeline:",
              on_click=show_timeline, args=(memory_id,))
    detail_view(store, memory_id, on_close=clear_selection)
