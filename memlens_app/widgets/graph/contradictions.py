"""Contradictions: those of the focus memory, and the store-wide review queue (pairs where
both sides are still active first), each pair handed to the Curate page on request."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from memlens_app.widgets.common.markup import badges, cells, md
from memlens_app.widgets.common.routes import page_path
from memlens_app.widgets.curate.source import CURATE_IDS
from memlens_app.widgets.graph.data import short
from memory_core import Contradiction, ContradictionSide

CURATE_PAGE = page_path("curate")


def curate_pair(pair: Contradiction) -> None:
    """Hand both sides of `pair` to the Curate page and go there (ends this run)."""
    st.session_state[CURATE_IDS] = [pair.a.memory_id, pair.b.memory_id]
    st.switch_page(CURATE_PAGE)


def _side(side: ContradictionSide, pair: Contradiction) -> str:
    marks = [("gray" if side.status == "active" else "red", side.status),
             ("green", "newer" if pair.newer == side.memory_id else ""),
             ("violet", "stronger" if pair.stronger == side.memory_id else "")]
    return (f"{badges(marks)} {md(short(side.content, 90))} "
            f"({side.created_at.date().isoformat()}, {md(side.importance)}, "
            f"composite {side.composite:.2f})")


def focus_contradictions(pairs: Sequence[Contradiction], focus: str) -> None:
    """The pairs the focus is part of: the other side, which is newer and stronger."""
    mine = [p for p in pairs if focus in (p.a.memory_id, p.b.memory_id)]
    if not mine:
        st.caption("No memory contradicts this one.")
        return
    for pair in mine:
        this, other = (pair.a, pair.b) if pair.a.memory_id == focus else (pair.b, pair.a)
        with st.container(border=True):
            st.markdown(f"**This:** {_side(this, pair)}")
            st.markdown(f"**Contradicted by:** {_side(other, pair)}")
            if st.button("Curate these", key=f"graph_curate_{pair.edge_id}"):
                curate_pair(pair)


def contradictions_queue(pairs: Sequence[Contradiction]) -> None:
    """Every contradicts pair, active-vs-active first; a selected pair goes to Curate."""
    both = sum(p.both_active for p in pairs)
    cols = st.columns(3)
    cols[0].metric("Contradicting pairs", len(pairs))
    cols[1].metric("Both sides active", both)
    cols[2].metric("Settled (a side inactive)", len(pairs) - both)
    if not pairs:
        st.caption("No contradicts edge in this tenant.")
        return
    rows = [{"both active": p.both_active,
             "a": short(p.a.content, 60), "a status": p.a.status,
             "a created": p.a.created_at.date().isoformat(),
             "b": short(p.b.content, 60), "b status": p.b.status,
             "b created": p.b.created_at.date().isoformat(),
             "newer": "a" if p.newer == p.a.memory_id else "b",
             "stronger": "a" if p.stronger == p.a.memory_id else "b",
             "a id": p.a.memory_id, "b id": p.b.memory_id} for p in pairs]
    picked = st.dataframe(cells(rows), hide_index=True, key="graph_queue",
                          on_select="rerun", selection_mode="single-row")
    selected = picked.selection.rows if picked is not None else []
    if st.button("Curate these", key="graph_queue_curate", disabled=not selected,
                 help="Open the selected pair on the Curate page, both sides selected"):
        curate_pair(pairs[selected[0]])
    if not selected:
        st.caption("Select a pair to curate it (keep one side, supersede or archive the "
                   "other).")
