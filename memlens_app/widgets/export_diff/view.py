"""Widgets of the Export Diff page: summary, breakdown, change table, side-by-side record.

Memory data is never rendered as HTML or Markdown: tables go through `st.dataframe` and
user-derived strings (ids, paths, notes) through `st.text`, so `<script>` or `**x**` in a memory
shows literally; both with invisible characters written out (`<U+202E>`).
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memory_core import BREAKDOWNS, CHANGES, DiffResult, diff_breakdown_bar, visible

IGNORABLE = ("updated_at", "access_count", "last_accessed_at", "embedding_status",
             "content_hash", "stability", "confidence", "tenant", "metadata")
HIGHLIGHT = "background-color: rgba(255, 170, 0, 0.25)"
PLURAL = {"memory": "Memories", "edge": "Edges"}


def summary(result: DiffResult) -> None:
    """Counts per kind as metrics, then the notes (as plain text)."""
    for kind, counts in result.counts.items():
        cols = st.columns(4)
        for col, (name, value) in zip(cols, vars(counts).items(), strict=True):
            col.metric(f"{PLURAL[kind]} {name}", value)
    for note in result.notes:
        st.text(visible(f"Note: {note}"))


def breakdown_chart(result: DiffResult) -> None:
    """The stacked breakdown of changes by a field the reviewer picks."""
    by = st.radio("Break down by", BREAKDOWNS, horizontal=True, key="diff_breakdown") \
        or "memory_type"
    kind = "edge" if by == "relation" else "memory"
    frame = result.breakdown(by, kind=kind)
    if frame.height:
        st.plotly_chart(diff_breakdown_bar(frame, title=f"{PLURAL[kind]} by {by}"))
    else:
        st.caption(f"No {kind} changed.")


def change_table(result: DiffResult) -> pl.DataFrame:
    """The changed records, filtered by the reviewer; returns the rows shown."""
    cols = st.columns([2, 1, 2])
    changes = cols[0].multiselect("Changes", CHANGES, default=list(CHANGES),
                                  key="diff_changes")
    kind = cols[1].selectbox("Kind", ("all", "memory", "edge"), key="diff_kind")
    needle = cols[2].text_input("Id or field contains", key="diff_needle").strip()
    frame = result.to_frame().filter(pl.col("change").is_in(changes))
    if kind != "all":
        frame = frame.filter(pl.col("kind") == kind)
    if needle:
        frame = frame.filter(pl.col("id").str.contains(needle, literal=True)
                             | pl.col("fields").list.join(",").str.contains(needle,
                                                                            literal=True))
    shown = frame.with_columns(pl.col("fields").list.join(", "))
    st.dataframe(frame_cells(shown), hide_index=True)
    st.caption(f"{frame.height} of {result.records.height} changed records")
    return frame


def record_view(result: DiffResult, frame: pl.DataFrame, a_label: str, b_label: str) -> None:
    """One record of `frame` side by side, changed fields highlighted."""
    if not frame.height:
        return
    keys = list(frame.select("kind", "id").iter_rows())
    chosen = st.selectbox("Record", keys, format_func=lambda k: visible(f"{k[0]} {k[1]}"),
                          key="diff_record")
    if chosen is None:
        return
    side = result.side_by_side(*chosen).sort("changed", descending=True, maintain_order=True)
    table = frame_cells(side.rename({"a": a_label, "b": b_label})).to_pandas()

    def highlight(row: Any) -> list[str]:
        return [HIGHLIGHT if row["changed"] else ""] * len(row)

    st.dataframe(table.style.apply(highlight, axis=1), hide_index=True)
    for field, old, new in side.filter(pl.col("changed")).select("field", "a", "b").iter_rows():
        st.text(visible(f"Changed: {field}"))
        left, right = st.columns(2)
        left.code(visible(_readable(old)), language=None, wrap_lines=True)
        right.code(visible(_readable(new)), language=None, wrap_lines=True)


def _readable(value: str | None) -> str:
    """A field's JSON text for reading: strings unquoted, absence said in words."""
    if value is None:
        return "(absent)"
    parsed = json.loads(value)
    return parsed if isinstance(parsed, str) else value
