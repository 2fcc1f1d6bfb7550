"""The Decay page's controls: the decay clock and the threshold every number uses, and the
what-if parameters (sliders starting at the current ones, `DecayParams()`).

Nothing here writes: the what-if parameters exist only in this session.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, time
from typing import Any

import streamlit as st

from memlens_app.widgets.common.markup import md
from memory_core import DEFAULT_THRESHOLD, IMPORTANCE_TIERS, DecayParams

CLOCK_KEY, THRESHOLD_KEY = "decay_as_of", "decay_threshold"
_WI = "decay_wi_"
#: What-if sliders: (DecayParams field, label, min, max, step, format, help).
SLIDERS: tuple[tuple[str, str, float, float, float, str, str], ...] = (
    ("stability_scale", "Stability scale", 0.25, 4.0, 0.05, "×%.2f",
     "Every memory's stability S (days) multiplied by this: 2 means everything is "
     "remembered twice as long."),
    ("fsrs_factor", "FSRS factor", 0.05, 1.0, 0.005, "%.3f",
     "The constant in R(t) = (1 + f·t/S)^-0.5; 0.235 in FSRS v4. Larger forgets faster."),
    ("usage_coefficient", "Usage coefficient", 0.0, 0.5, 0.01, "%.2f",
     "usage = 1 + c·ln(1 + recalls), capped: how much each recall is worth."),
    ("usage_cap", "Usage cap", 1.0, 3.0, 0.05, "×%.2f", "The most usage can multiply by."),
)
#: Tiers with an anchor slider: a constitutional memory's composite is fixed at 1.
ANCHORED = tuple(t for t in IMPORTANCE_TIERS if t != "constitutional")


@dataclass(frozen=True)
class Controls:
    """What the page's numbers depend on besides the store and the filter."""

    as_of: datetime
    threshold: float
    current: DecayParams
    what_if: DecayParams
    #: (knob, current, what-if) for each what-if knob that differs from the current one
    changed: tuple[tuple[str, float, float], ...]


def clock_and_threshold() -> tuple[datetime, float]:
    """The decay clock (a day, at midnight UTC) and the threshold."""
    clock_col, threshold_col = st.columns(2)
    day = clock_col.date_input(
        "Decay clock", key=CLOCK_KEY, format="YYYY-MM-DD",
        help="The day every number on this page is computed for (midnight UTC): the same "
             "day gives the same numbers later, as the Ranking Lab's clock and "
             "`memlens eval --as-of` do.")
    threshold = threshold_col.slider(
        "Threshold", 0.05, 1.5, DEFAULT_THRESHOLD, 0.05, key=THRESHOLD_KEY,
        help="A memory is at risk once its composite falls below this. 0.5: half as likely "
             "to be shown as a fresh memory of the same tier.")
    chosen = day if isinstance(day, date) else datetime.now(UTC).date()
    return datetime.combine(chosen, time(), tzinfo=UTC), float(threshold)


def _reset() -> None:
    """Put every what-if slider back to the current parameters (a callback)."""
    base = DecayParams()
    for name, *_ in SLIDERS:
        st.session_state[f"{_WI}{name}"] = float(getattr(base, name))
    for tier in ANCHORED:
        st.session_state[f"{_WI}anchor_{tier}"] = float(base.tier_anchor.get(tier, 1.0))


def differences(current: DecayParams, changed: DecayParams
                ) -> tuple[tuple[str, float, float], ...]:
    """(knob, current, what-if) for each numeric knob and tier anchor that differs.

    >>> differences(DecayParams(), DecayParams(usage_cap=2.0))
    (('usage_cap', 1.5, 2.0),)
    """
    out = [(f.name, getattr(current, f.name), getattr(changed, f.name))
           for f in fields(DecayParams) if f.name != "tier_anchor"
           and getattr(current, f.name) != getattr(changed, f.name)]
    tiers = dict.fromkeys([*current.tier_anchor, *changed.tier_anchor])
    out += [(f"anchor {t}", current.tier_anchor.get(t, 1.0), changed.tier_anchor.get(t, 1.0))
            for t in tiers if current.tier_anchor.get(t, 1.0) != changed.tier_anchor.get(t, 1.0)]
    return tuple(out)


def what_if_panel() -> tuple[DecayParams, DecayParams]:
    """The what-if sliders in an expander: (current parameters, what-if parameters)."""
    current = DecayParams()
    values: dict[str, Any] = {}
    with st.expander("What if? Decay parameters"):
        st.caption("Move a slider to see what the store would look like under other "
                   "parameters: dashed lines and the *current* numbers keep today's "
                   "defaults. Nothing is written; the store keeps its data.")
        for col, (name, label, low, high, step, fmt, help_text) in zip(
                st.columns(len(SLIDERS)), SLIDERS, strict=True):
            values[name] = col.slider(label, low, high, float(getattr(current, name)), step,
                                      format=fmt, key=f"{_WI}{name}", help=help_text)
        st.caption("Tier anchors: the composite's multiplier by importance (constitutional "
                   "memories never decay: their composite is 1)")
        anchors = dict(current.tier_anchor)
        for col, tier in zip(st.columns(len(ANCHORED)), ANCHORED, strict=True):
            anchors[tier] = col.slider(tier, 0.0, 3.0, float(current.tier_anchor.get(tier, 1.0)),
                                       0.05, format="×%.2f", key=f"{_WI}anchor_{tier}")
        st.button("Reset to the current parameters", key="decay_wi_reset", on_click=_reset)
    return current, DecayParams(**{**values, "tier_anchor": anchors,
                                   "pattern_boost": current.pattern_boost,
                                   "citation_boost": current.citation_boost,
                                   "citation_days": current.citation_days})


def controls() -> Controls:
    """The clock, the threshold and the what-if panel, with a line naming what differs."""
    as_of, threshold = clock_and_threshold()
    current, changed = what_if_panel()
    diff = differences(current, changed)
    if diff:
        labels = {name: label for name, label, *_ in SLIDERS}
        st.caption("What-if: " + md(" · ".join(f"{labels.get(name, name)} {a:g} → {b:g}"
                                               for name, a, b in diff)))
    return Controls(as_of, threshold, current, changed, diff)
