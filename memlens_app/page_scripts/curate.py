"""Curate: archive, restore, edit, supersede, merge, delete or purge memories, each previewed,
confirmed, audited and (except a purge) undoable; consolidate related memories into reviewed
reflections (the Consolidate tab: candidates, drafts, accept or reject, the evidence-changed
queue); and the audit log, batch by batch.

Other pages hand memories over by setting `st.session_state["curate_ids"]` (a list of ids)
before switching here: they are listed and selected (see widgets/curate/source.py).
"""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.state import store_and_choices
from memlens_app.widgets.consolidate.tab import consolidate_tab
from memlens_app.widgets.curate.actions import action_panel
from memlens_app.widgets.curate.audit import audit_log
from memlens_app.widgets.curate.source import source_panel
from memlens_app.widgets.curate.table import selection_table

st.header("Curate")
store, choices = store_and_choices()
if choices.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories to curate.")
    st.stop()

# Keyed with a rerun on change, so the Consolidate tab finds candidates only while it is open.
memories_tab, consolidation = st.tabs(["Memories", "Consolidate"], key="curate_tab",
                                      on_change="rerun")
with memories_tab:
    source = source_panel(store, choices)
    selected = selection_table(source.memories)

    st.subheader("Act on the selection", anchor=False)
    if store.read_only:
        st.info("read-only: this store was opened read-only (MEMLENS_READ_ONLY=1 or "
                "--read-only), so memories cannot be changed here; the table and the audit "
                "log stay visible.")
    else:
        action_panel(store, selected, {m.id: m for m in source.memories}, source.everything,
                     source.matching)
if consolidation.open:
    with consolidation:
        consolidate_tab(store)

st.subheader("Audit log", anchor=False)
audit_log(store)
