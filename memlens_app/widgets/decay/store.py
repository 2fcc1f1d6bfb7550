"""The store-wide view of decay: how many memories are below the threshold now, in 30 and in
90 days under the current and the what-if parameters, by type and tier; the composite's
distribution; and each memory's age against its composite."""

from __future__ import annotations

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memlens_app.widgets.decay.controls import Controls
from memory_core import WhatIf, age_scatter, composite_histogram

COLOUR_BY = {"memory_type": "Type", "importance": "Tier"}


def _when(horizon: int) -> str:
    return "now" if horizon == 0 else f"in {horizon} days"


def _short(horizon: int) -> str:
    return "now" if horizon == 0 else f"{horizon} d"


def counts(result: WhatIf, ctl: Controls) -> None:
    """One box a horizon, each with the count under the current parameters and under the
    what-if ones (with its change: fewer is green)."""
    every = result.frame.filter(pl.col("group") == "all")
    by_horizon = {r["horizon"]: r for r in every.iter_rows(named=True)}
    st.markdown(f"**Memories below the threshold {ctl.threshold:g}**, of {result.memories}, "
                f"if nobody recalls them meanwhile: current parameters and what-if")
    for box, horizon in zip(st.columns(len(result.horizons)), result.horizons, strict=True):
        row = by_horizon.get(horizon, {"below_a": 0, "below_b": 0, "delta": 0})
        with box.container(border=True):
            st.markdown(f"**{_when(horizon).capitalize()}**")
            left, right = st.columns(2)
            left.metric(f"current · {_short(horizon)}", row["below_a"])
            right.metric(f"what-if · {_short(horizon)}", row["below_b"],
                         delta=row["delta"] if ctl.changed else None, delta_color="inverse")
    if not ctl.changed:
        st.caption("The what-if parameters are the current ones: open **What if?** above "
                   "and move a slider to compare.")


def by_group_table(result: WhatIf) -> None:
    """The what-if counts by type and tier, one row a group, a column pair a horizon."""
    frame = result.frame.filter(pl.col("group") != "all")
    if frame.is_empty():
        return
    wide = frame.select("group").unique(maintain_order=True)
    for horizon in result.horizons:
        part = frame.filter(pl.col("horizon") == horizon).select(
            "group", pl.col("below_a").alias(f"{_when(horizon)} current"),
            pl.col("below_b").alias(f"{_when(horizon)} what-if"),
            pl.col("delta").alias(f"{_when(horizon)} Δ"))
        wide = wide.join(part, on="group", how="left")
    split = pl.col("group").str.splitn(":", 2)
    wide = wide.with_columns(split.struct.field("field_0").alias("by"),
                             split.struct.field("field_1").alias("group"))
    wide = wide.select("by", "group", *[c for c in wide.columns if c not in ("by", "group")])
    with st.expander("Below the threshold by type and tier"):
        st.dataframe(frame_cells(wide), hide_index=True, key="decay_by_group")


def distribution(frame: pl.DataFrame, ctl: Controls) -> None:
    """The histogram of composites (coloured by type or tier) and the age scatter."""
    by = st.segmented_control("Colour by", list(COLOUR_BY), format_func=COLOUR_BY.__getitem__,
                              key="decay_colour_by", default="memory_type", required=True)
    by = by or "memory_type"
    left, right = st.columns(2)
    left.plotly_chart(composite_histogram(frame, by=by, threshold=ctl.threshold),
                      key="decay_histogram")
    right.plotly_chart(age_scatter(frame, by=by, threshold=ctl.threshold),
                       key="decay_scatter")


def store_wide(frame: pl.DataFrame, result: WhatIf, ctl: Controls) -> None:
    """Everything store-wide, with a line on what the charts use."""
    never = int(frame["never_decays"].sum())
    below = int((frame["composite"] < ctl.threshold).sum())
    st.caption(f"{frame.height} memories at {ctl.as_of:%Y-%m-%d} · {below} below "
               f"{ctl.threshold:g} · {never} constitutional (never decay, composite 1)"
               + (" · the charts use the what-if parameters" if ctl.changed else ""))
    counts(result, ctl)
    by_group_table(result)
    distribution(frame, ctl)
