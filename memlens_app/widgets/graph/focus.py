"""Where the Graph page is centred: a memory found by search, a memory id typed or pasted,
or one handed over by another page ("open in graph", see widgets/graph/link.py)."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.graph.data import short
from memlens_app.widgets.graph.link import GRAPH_FOCUS
from memory_core import STATUSES, Filter, Hit, MemlensError, MemoryStore, search, visible

BY = {"search": "Search", "id": "Memory id"}
FOCUS_BY, QUERY, PICK, ID = "graph_focus_by", "graph_query", "graph_pick", "graph_focus_id"


def take_handover() -> None:
    """Move an id handed over in `GRAPH_FOCUS` into the id box."""
    memory_id = st.session_state.pop(GRAPH_FOCUS, None)
    if memory_id is not None:
        st.session_state[FOCUS_BY] = "id"
        st.session_state[ID] = str(memory_id)


def refocus(memory_id: str) -> None:
    """Centre the page on `memory_id` (a callback: it runs before the widgets)."""
    st.session_state[FOCUS_BY] = "id"
    st.session_state[ID] = memory_id


def _hits(store: MemoryStore, query: str) -> list[Hit]:
    try:  # every status: a superseded decision is worth centring on too
        return list(search(store, query, Filter(status=STATUSES), limit=10))
    except MemlensError as exc:
        show_error(exc)
        return []


def focus_picker(store: MemoryStore) -> str | None:
    """The focus memory's id, or None while there is none yet (the page says what to do)."""
    take_handover()
    st.session_state.setdefault(FOCUS_BY, "search")
    how_col, what_col, pick_col = st.columns([2, 3, 4], vertical_alignment="bottom")
    how = how_col.segmented_control("Focus by", list(BY), format_func=BY.__getitem__,
                                    key=FOCUS_BY, required=True)
    if how == "id":
        typed = what_col.text_input("Memory id", key=ID, placeholder="a memory id")
        return typed.strip() or None
    query = what_col.text_input("Find a memory", key=QUERY,
                                placeholder="e.g. why did we move session caching off Redis?")
    if not query.strip():
        return None
    hits = {h.memory.id: h for h in _hits(store, query)}
    if not hits:
        pick_col.caption("No memory matches this query.")
        return None

    def label(memory_id: str) -> str:
        m = hits[memory_id].memory
        return visible(f"{m.memory_type} · {short(m.content)}")

    if st.session_state.get(PICK) not in hits:
        st.session_state.pop(PICK, None)  # a new query: its best hit
    return pick_col.selectbox("Memory", list(hits), format_func=label, key=PICK)
