"""Decay curves: retrievability R(t), or the composite of a memory left alone, over a year
for chosen memory types and importance tiers, current parameters dashed and what-if solid,
with the day each one crosses the threshold."""

from __future__ import annotations

import math

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memlens_app.widgets.decay.controls import Controls
from memlens_app.widgets.decay.data import get_curves
from memory_core import (
    IMPORTANCE_TIERS,
    MEMORY_TYPES,
    DecayParams,
    curves_chart,
    default_stability,
    threshold_days,
    usage_factor,
    visible,
)

DAYS = 365
PLOTS = {"composite": "Composite", "retrievability": "R(t)"}
DEFAULT_TYPES = ["decision", "observation", "session_summary"]


def _label(memory_type: str, tier: str, tiers: int) -> str:
    return visible(memory_type if tiers == 1 else f"{memory_type} · {tier}")


def multiplier(tier: str, recalls: int, params: DecayParams) -> float:
    """What R is multiplied by for a memory of `tier` recalled `recalls` times and not cited
    lately: usage times the tier anchor; 1 for a constitutional memory (it never decays)."""
    if tier == "constitutional":
        return 1.0
    return (usage_factor(recalls, coefficient=params.usage_coefficient, cap=params.usage_cap)
            * params.tier_anchor.get(tier, 1.0))


def _curves(stabilities: dict[str, float], ks: dict[str, float], params: DecayParams
            ) -> pl.DataFrame:
    frame = get_curves(stabilities, DAYS, params)
    factor = pl.DataFrame({"label": list(ks), "k": list(ks.values())})
    return frame.join(factor, on="label", how="left").with_columns(
        (pl.col("retrievability") * pl.col("k")).alias("composite"))


def _crossing(k: float, stability: float, threshold: float, params: DecayParams,
              tier: str) -> str:
    if tier == "constitutional":
        return "never"
    days = threshold_days(k, stability * params.stability_scale, threshold, params.fsrs_factor)
    if math.isinf(days) or days > 100 * 365:
        return "never"
    return "already below" if days <= 0 else f"{days:,.0f}"


def curves_panel(ctl: Controls) -> None:
    """The pickers, the chart and the table of threshold crossings."""
    pick_types, pick_tiers, pick_plot, pick_recalls = st.columns([3, 2, 1.4, 1])
    types = pick_types.multiselect("Memory types", MEMORY_TYPES, default=DEFAULT_TYPES,
                                   key="decay_curve_types", format_func=visible)
    tiers = pick_tiers.multiselect("Importance tiers", IMPORTANCE_TIERS, default=["normal"],
                                   key="decay_curve_tiers")
    plot = pick_plot.segmented_control(
        "Plot", list(PLOTS), format_func=PLOTS.__getitem__, default="composite",
        required=True, key="decay_curve_plot",
        help="Composite: R × usage × tier anchor, what the threshold applies to; R(t): "
             "retrievability alone") or "composite"
    recalls = int(pick_recalls.number_input(
        "Recalls", 0, 10_000, 0, key="decay_curve_recalls",
        help="How many times the memory was recalled (the usage factor)"))
    if not types or not tiers:
        st.info("Pick at least one memory type and one importance tier to draw.")
        return
    combos = [(t, tier) for t in types for tier in tiers]
    stabilities = {_label(t, tier, len(tiers)): default_stability(t, tier) for t, tier in combos}
    tier_of = {_label(t, tier, len(tiers)): tier for t, tier in combos}
    now = _curves(stabilities, {lb: multiplier(tier_of[lb], recalls, ctl.current)
                                for lb in stabilities}, ctl.current)
    changed = _curves(stabilities, {lb: multiplier(tier_of[lb], recalls, ctl.what_if)
                                    for lb in stabilities}, ctl.what_if)
    title = ("Composite of a memory left alone" if plot == "composite"
             else "Retrievability R(t)")
    st.plotly_chart(curves_chart(changed, value=plot, baseline=now if ctl.changed else None,
                                 threshold=ctl.threshold, title=title), key="decay_curves")
    st.caption("Dashed: the current parameters; solid: the what-if ones (the same lines "
               "until a what-if slider moves). Stability S is each type's default for new "
               "memories, times the tier's factor.")
    rows = []
    for label, stability in stabilities.items():
        k_now = multiplier(tier_of[label], recalls, ctl.current) if plot == "composite" else 1.0
        k_new = multiplier(tier_of[label], recalls, ctl.what_if) if plot == "composite" else 1.0
        rows.append({"curve": label, "S (days)": round(stability, 1),
                     "below threshold after (days), current":
                         _crossing(k_now, stability, ctl.threshold, ctl.current,
                                   tier_of[label]),
                     "what-if": _crossing(k_new, stability, ctl.threshold, ctl.what_if,
                                         tier_of[label])})
    st.dataframe(frame_cells(pl.DataFrame(rows)), hide_index=True, key="decay_crossings")
