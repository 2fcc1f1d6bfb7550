"""Map: the tenant's memories laid out by meaning (UMAP of their vectors), coloured by type,
project, agent, status, importance, cluster, age or decay; clusters labelled by their words;
near-duplicate pairs linked; a query placed among its hits; and a selection (click, box,
lasso or whole clusters) handed to curation.

Reading only: nothing here writes to the store (computed maps go to the map cache under
MEMLENS_MODEL_CACHE), so a read-only store needs nothing special.

Hand-over to Curate: **Open in Curate** sets `st.session_state["curate_ids"]` to the
selected memory ids (a list of str, in selection order) and switches to the Curate page,
which takes them once, lists and selects them (widgets/curate/source.py).
"""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.markup import code, md
from memlens_app.widgets.common.search_filters import filter_panel, filter_summary
from memlens_app.widgets.common.state import store_and_choices
from memlens_app.widgets.map.controls import umap_knobs, view_controls
from memlens_app.widgets.map.selection import picked_ids, selection_table
from memlens_app.widgets.map.tables import cluster_table, duplicate_table
from memlens_app.widgets.map.view import caption, draw, load_map, overlays

st.header("Map")
store, choices = store_and_choices()
if choices.memories == 0:
    st.info(f"Tenant **{md(store.tenant)}** of {code(store.uri)} has no memories yet; seed "
            f"the demo corpus from the Overview page.")
    st.stop()

flt = filter_panel(store, choices, key="map")
params = umap_knobs()
view = view_controls()
st.caption(f"Filter: {filter_summary(flt)}")

if store.count(flt) == 0:
    st.info("No memory matches the filter: widen it (statuses, projects, types…) to draw "
            "a map.")
    st.stop()
projection = load_map(store, flt, params)
if projection is None:
    st.stop()

extra = overlays(store, projection, flt, view)
event = draw(projection, view, extra)
caption(projection, extra)
if extra.clusters is not None:
    cluster_table(extra.clusters)
if extra.pairs is not None:
    duplicate_table(extra.pairs, view.threshold)

st.subheader("Selection", anchor=False)
selection_table(projection.frame, picked_ids(projection.frame, event, extra.clusters))
