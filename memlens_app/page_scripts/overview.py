"""Overview: what the agents remember, when they wrote it, and how healthy the store is."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.read_only import writes_allowed
from memlens_app.widgets.common.state import (
    chosen,
    configured_store_missing,
    get_over_time,
    store_and_stats,
)
from memlens_app.widgets.common.store_panels import (
    audit_table,
    index_health_warning,
    seed_demo_button,
)
from memory_core import counts_bar, written_over_time

st.header("Overview")
if configured_store_missing():
    uri, tenant = chosen()
    creates = ("seeding the demo corpus creates the store" if writes_allowed(None)
               else "the app is read-only, so it cannot create it")
    st.info(f"There is no store at {code(uri)} yet, so tenant **{md(tenant)}** has no "
            f"memories yet; {creates}.")
    seed_demo_button(None)
    st.stop()
store, stats = store_and_stats()

if stats.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories yet.")
    seed_demo_button(store)
    st.stop()

cols = st.columns(6)
cols[0].metric("Memories", stats.memories)
cols[1].metric("Active", stats.active)
cols[2].metric("Edges", stats.edges)
cols[3].metric("Pending embeddings", stats.pending_embeddings)
cols[4].metric("Duplicate groups", stats.duplicate_groups)
cols[5].metric("Dangling edges", stats.dangling_edges)
if stats.interrupted_write:
    st.warning(md(stats.interrupted_write))
if stats.pending_embeddings:
    st.warning(f"{stats.pending_embeddings} memories have no vector yet; vector search skips "
               f"them. Run `memlens reembed` to fill them in.")
index_health_warning(store, stats)

left, right = st.columns(2)
left.plotly_chart(counts_bar(stats.by_type, title="Active memories by type"))
right.plotly_chart(counts_bar(stats.by_project, title="By project"))
left.plotly_chart(counts_bar(stats.by_agent, title="By agent"))
right.plotly_chart(counts_bar(stats.by_status, title="By status (all memories)"))
st.plotly_chart(written_over_time(get_over_time(store.uri, store.tenant, store.version)))

st.subheader("Latest audit entries")
audit_table(store.audit.entries(limit=15))
