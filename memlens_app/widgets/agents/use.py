"""The Agents page's memory-use panel: recalled most, recalled but never cited, and not
recalled in N days."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.agents.links import memory_links
from memlens_app.widgets.common.markup import frame_cells
from memory_core import MemoryStore, MemoryUse, memory_use


def use_panel(store: MemoryStore) -> None:
    """The three lists, and links to Curate and Graph for any memory in them."""
    days = st.slider("Not recalled in (days)", 1, 365, 30, key="agents_days")
    use: MemoryUse = memory_use(store, days=days)
    lists = (("Recalled most", use.recalled_most),
             ("Recalled but never cited", use.recalled_never_cited),
             (f"Not recalled in {days} days", use.not_recalled))
    for (title, rows), column in zip(lists, st.columns(3), strict=True):
        with column:
            st.subheader(title, anchor=False)
            if rows:
                st.dataframe(frame_cells(MemoryUse.frame(rows).select(
                    "memory_id", "recalls", "cites", "content")), hide_index=True,
                    key=f"agents_use_{title[:8]}")
            else:
                st.caption("None.")
    shown = {r.memory_id: r.content for _, rows in lists for r in rows}
    memory_links(list(shown), shown, key="agents_use")
