"""The Map page's tables: the clusters (size, label, what they hold) and the near-duplicate
pairs. Tables show untrusted text as plain cells (`frame_cells` writes invisible
characters out)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memlens_app.widgets.decay.data import clipped
from memory_core import Clusters

CONTENT_CHARS = 120


def cluster_table(clusters: Clusters) -> None:
    """One row per cluster, largest first, noise last."""
    table = clusters.table.sort(pl.col("cluster") == -1, pl.col("size"), descending=[False, True])
    shown = table.select(
        pl.when(pl.col("cluster") == -1).then(pl.lit("noise"))
        .otherwise(pl.col("cluster").cast(pl.String)).alias("cluster"),
        "label", "size", pl.col("top_types").alias("top types"),
        pl.col("top_projects").alias("top projects"))
    noise = table.filter(pl.col("cluster") == -1)["size"].sum()
    with st.expander(f"Clusters: {table.height - (1 if noise else 0)} found, {noise} "
                     f"memories in none (noise)"):
        st.caption(f"HDBSCAN on the map's 2-D layout, min cluster size "
                   f"{clusters.min_cluster_size}; each label is the cluster's three most "
                   f"distinctive words (class-based TF-IDF). Add clusters under *Selection* "
                   f"to list their memories.")
        st.dataframe(frame_cells(shown), hide_index=True, key="map_cluster_table",
                     height=min(36 + 35 * shown.height, 388),
                     column_config={"label": st.column_config.TextColumn("label",
                                                                         width="medium")})


def duplicate_table(pairs: pl.DataFrame, threshold: float) -> None:
    """The near-duplicate pairs, most similar first, each side's content clipped."""
    st.markdown(f"**Near-duplicates**: {pairs.height} pairs with cosine ≥ {threshold:.2f} "
                f"and different text")
    if pairs.is_empty():
        st.caption("No pair this close: lower the threshold to see looser pairs.")
        return
    shown = pairs.select("cosine", clipped("a_content", CONTENT_CHARS),
                         clipped("b_content", CONTENT_CHARS), "a", "b")
    st.dataframe(frame_cells(shown), hide_index=True, key="map_duplicate_table",
                 height=min(36 + 35 * shown.height, 318),
                 column_config={"cosine": st.column_config.NumberColumn("cosine",
                                                                        format="%.3f"),
                                "a_content": st.column_config.TextColumn("a", width="large"),
                                "b_content": st.column_config.TextColumn("b", width="large"),
                                "a": st.column_config.TextColumn("a id"),
                                "b": st.column_config.TextColumn("b id")})
