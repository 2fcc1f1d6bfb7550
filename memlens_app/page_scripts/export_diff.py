"""Export Diff: what changed between two exports, an export and the live store, or two table
versions of the memories (docs/design/exports.md)."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import md
from memlens_app.widgets.common.state import current_store, get_diff, show_error
from memlens_app.widgets.export_diff.side_picker import side_picker
from memlens_app.widgets.export_diff.view import (
    IGNORABLE,
    breakdown_chart,
    change_table,
    record_view,
    summary,
)
from memory_core import MemlensError, default_exports_dir, visible

st.header("Export Diff")
try:
    store = current_store()
except MemlensError as exc:
    show_error(exc)
    st.stop()

folder = default_exports_dir(store.uri)
left, right = st.columns(2)
with left:
    a = side_picker("A", store, folder, default="Export file")
with right:
    b = side_picker("B", store, folder, default="Live store")
ignore = st.multiselect("Ignore fields", IGNORABLE, key="diff_ignore",
                        help="Records that differ only in these fields count as unchanged.")
if a is None or b is None:
    st.info("Pick both sides to compare them.")
    st.stop()

try:
    result = get_diff(store.uri, store.tenant, a.spec, b.spec, tuple(ignore),
                      (a.stamp, b.stamp))
except MemlensError as exc:
    show_error(exc)
    st.stop()

st.text(visible(f"A: {a.label}    B: {b.label}"))
if result.tenant_mismatch:
    st.warning(md(result.tenant_mismatch))
summary(result)
if result.identical:
    st.success("The two sides hold the same memories and edges.")
    st.stop()

breakdown_chart(result)
st.subheader("Changes")
shown = change_table(result)
st.subheader("Side by side")
record_view(result, shown, f"A: {a.label}", f"B: {b.label}")
