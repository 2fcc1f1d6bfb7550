"""Search: what the agents would recall for a query, and why each memory ranks where it does.

Searching never records access (only `recall` does), so reviewing here changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.memory_detail import detail_view
from memlens_app.widgets.common.ranking_knobs import preset_picker, ranking_panel
from memlens_app.widgets.common.result_cards import DETAIL_KEY, result_card
from memlens_app.widgets.common.search_filters import filter_panel, filter_summary
from memlens_app.widgets.common.state import show_error, store_and_choices
from memory_core import TIERS, MemlensError, search

st.header("Search")
store, choices = store_and_choices()

if choices.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories yet; seed "
            f"the demo corpus from the Overview page.")
    st.stop()

query_col, preset_col, limit_col = st.columns([5, 2, 1])
query = query_col.text_input("Query", key="search_query",
                             placeholder="e.g. why did we move session caching off Redis?")
with preset_col:
    preset_name = preset_picker()
limit = int(limit_col.number_input("Results", 1, 100, 10, key="search_limit"))
tier = st.segmented_control("Output tier", TIERS, default="standard", required=True,
                            key="search_tier") or "standard"
flt = filter_panel(store, choices)
config = ranking_panel(preset_name)
st.caption(f"Filter: {filter_summary(flt)}")

if not query.strip():
    st.info("Type a query to search this tenant's memories.")
    st.stop()
if config is None:
    st.stop()

try:
    results = search(store, query, flt, config, limit=limit)
except MemlensError as exc:
    show_error(exc)
    st.stop()

st.caption(f"{len(results)} results in {results.elapsed_ms:.0f} ms")
if results.degraded:
    st.warning("Search ran degraded:\n" + "\n".join(f"- {md(r)}" for r in results.reasons))
if not results:
    st.info("No memory matches this query under the filter.")

# The detail column is always there, so opening a memory does not re-mount (and close) the
# explanations the reviewer has open.
left, right = st.columns([3, 2])
now = datetime.now(UTC)
with left:
    for hit in results:
        result_card(hit, tier, now)
with right:
    detail_view(store, st.session_state.get(DETAIL_KEY))
