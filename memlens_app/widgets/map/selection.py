"""The Map page's selection: the memories picked on the map (a click, a box or a lasso) or by
whole clusters, as a table, and the hand-over of their ids to the Curate page
(`st.session_state["curate_ids"]`, see widgets/curate/source.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memlens_app.widgets.common.routes import page_path
from memlens_app.widgets.curate.source import CURATE_IDS
from memlens_app.widgets.decay.data import clipped
from memory_core import Clusters, selected_ids, visible

CHART_KEY = "map_chart"
CLUSTERS_KEY = "map_pick_clusters"
CURATE_PAGE = page_path("curate")
CONTENT_CHARS = 160


def _cluster_name(table: pl.DataFrame) -> dict[int, str]:
    return {c: ("noise" if c == -1 else f"{c} · {visible(label)} ({size})")
            for c, label, size in table.select("cluster", "label", "size").iter_rows()}


def picked_ids(frame: pl.DataFrame, chart_state: Mapping[str, Any] | None,
               clusters: Clusters | None) -> list[str]:
    """The ids selected on the chart, then those of the clusters picked in the
    multiselect; only memories on the map, each once."""
    ids = selected_ids(chart_state)
    if clusters is not None:
        names = _cluster_name(clusters.table)
        picked = st.multiselect(
            "Add whole clusters", list(names), format_func=names.__getitem__,
            key=CLUSTERS_KEY, placeholder="Select clusters to add their memories")
        if picked:
            members = clusters.assignments.filter(pl.col("cluster").is_in(picked))
            ids += members["id"].to_list()
    on_map = set(frame["id"].to_list())
    return [i for i in dict.fromkeys(ids) if i in on_map]


def selection_table(frame: pl.DataFrame, ids: list[str]) -> None:
    """The selected memories in selection order, and the button that opens them in Curate."""
    if not ids:
        st.caption("Click a point, or draw a box or a lasso on the map (its toolbar, top "
                   "right), or add whole clusters, to list memories here.")
        return
    order = pl.DataFrame({"id": ids, "order": range(len(ids))})
    rows = (frame.join(order, on="id").sort("order")
            .select("id", pl.col("memory_type").alias("type"), "project",
                    pl.col("created_at").dt.date().alias("date"),
                    clipped("content", CONTENT_CHARS)))
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.markdown(f"**{len(ids)} selected**")
    if right.button(f"Open {len(ids)} in Curate", key="map_to_curate", type="primary",
                    icon=":material/edit_note:", width="stretch"):
        st.session_state[CURATE_IDS] = list(ids)
        st.switch_page(CURATE_PAGE)
    st.dataframe(frame_cells(rows), hide_index=True, key="map_selection_table",
                 height=min(36 + 35 * rows.height, 388),
                 column_config={"content": st.column_config.TextColumn("content",
                                                                       width="large")})
