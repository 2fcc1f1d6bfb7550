"""One memory in full: its fields, its edges in and out, and its audit history."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from memlens_app.widgets.common.markup import cells
from memlens_app.widgets.common.result_cards import field_rows, select_memory
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.common.store_panels import audit_table
from memlens_app.widgets.graph.link import graph_button
from memory_core import (
    SHOWN_CHARS,
    MemlensError,
    Memory,
    MemoryStore,
    cut_content,
    memory_doc,
    visible,
)


def _first_line(memory: Memory | None, width: int = 80) -> str:
    if memory is None:
        return "(not in this tenant)"
    line = memory.content.strip().splitlines()[0] if memory.content.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def detail_view(store: MemoryStore, memory_id: str | None, *,
                on_close: Callable[[], None] | None = None) -> None:
    """Every field of one memory, its edges in and out, and its audit history. **Close**
    calls `on_close` (default: the Search page's detail is closed)."""
    if memory_id is None:
        st.caption("Press **Details** on a result to see all its fields, its edges in and "
                   "out, and its audit history here.")
        return
    try:
        memory = store.get(memory_id)
        edges = store.edges.list(memory_id=memory_id, include_inactive=True)
        others = store.get_many([e.target_id if e.source_id == memory_id else e.source_id
                                 for e in edges])
        history = store.audit.entries(memory_id=memory_id)
    except MemlensError as exc:
        show_error(exc)
        return
    st.subheader("Memory", anchor=False)
    # the buttons under the heading: a pane beside the results is too narrow for all three
    # in one row ("Open in graph" showed as "O.")
    graph, close = st.columns([3, 2], vertical_alignment="center")
    with graph:
        graph_button(memory_id, key="detail_graph", label="Open in graph")
    if on_close is None:
        close.button("Close", key="detail_close", on_click=select_memory, args=(None,))
    else:
        close.button("Close", key="detail_close", on_click=on_close)
    content, total = cut_content(memory.content)
    if total and st.toggle(f"Show all {total:,} characters", key=f"detail_all_{memory_id}",
                           help=f"Details show the first {SHOWN_CHARS:,} characters"):
        content = memory.content
    st.text(visible(content))
    st.dataframe(field_rows(memory_doc(memory), {"kind", "content"}), hide_index=True,
                 key="detail_fields")
    st.markdown("**Edges**")
    if edges:
        rows = []
        for e in edges:
            out = e.source_id == memory_id
            other = e.target_id if out else e.source_id
            rows.append({"direction": "out →" if out else "← in", "relation": e.relation,
                         "other memory": _first_line(others.get(other)),
                         "strength": round(e.strength, 3), "status": e.status,
                         "other id": other})
        st.dataframe(cells(rows), hide_index=True, key="detail_edges")
    else:
        st.caption("No edges.")
    st.markdown("**Audit history**")
    audit_table(history)
