"""The Curate page's table of memories, with a checkbox per row: returns the ids selected.

Streamlit keeps a table's selection as row positions. After a write the rows can move (an
archived memory leaves an "active" filter), so the page clears the selection then, rather
than let a position point at another memory; a preview always lists the ids it acts on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from memlens_app.widgets.common.markup import cells, frame_cells
from memlens_app.widgets.curate.report import snippet
from memory_core import Memory, memories_to_frame

TABLE_KEY = "curate_table"
_RESET_KEY = "curate_table_reset"
COLUMNS = ("id", "content", "memory_type", "status", "project", "agent", "tags", "importance",
           "created_at", "updated_at")


def _selection(rows: list[int]) -> dict[str, dict[str, list[object]]]:
    return {"selection": {"rows": list(rows), "columns": [], "cells": []}}


def select_all_rows(count: int) -> None:
    """Select the first `count` rows on the next render (an id list handed over)."""
    st.session_state[_RESET_KEY] = list(range(count))


def clear_selection() -> None:
    """Select nothing on the next render (after a write: rows may have moved)."""
    st.session_state[_RESET_KEY] = []


def selection_table(memories: list[Memory]) -> list[str]:
    """The memories as a table with row checkboxes; the ids of the rows selected."""
    rows = st.session_state.pop(_RESET_KEY, None)
    if rows is not None:
        st.session_state[TABLE_KEY] = _selection([r for r in rows if r < len(memories)])
    if not memories:
        st.caption("No memories to list.")
        return []
    frame = frame_cells(memories_to_frame(memories).select(COLUMNS))
    event = st.dataframe(
        frame, key=TABLE_KEY, on_select="rerun", selection_mode="multi-row", hide_index=True,
        height=min(36 + 35 * len(memories), 286),
        column_config={"content": st.column_config.TextColumn("content", width="large"),
                       "id": st.column_config.TextColumn("id", width="medium")},
    )
    ids = [memories[i].id for i in event.selection.rows if i < len(memories)]
    st.caption(f"{len(memories)} listed · {len(ids)} selected")
    return ids


def selected_view(ids: Sequence[str], listed: Mapping[str, Memory]) -> None:
    """The selected memories, first lines only: what an action will act on, in view while
    the table scrolls."""
    if not ids:
        return
    st.markdown(f"**Selected: {len(ids)}**")
    st.dataframe(cells([{"content": snippet(listed.get(i)),
                         "status": listed[i].status if i in listed else "", "id": i}
                        for i in ids]),
                 hide_index=True, key="curate_selected", height=min(36 + 35 * len(ids), 216))
