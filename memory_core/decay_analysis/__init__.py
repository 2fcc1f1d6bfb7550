"""Decay analytics over a whole tenant, vectorised (DESIGN.md sections 4 and 11).

API contract (the helpers implementing it own the modules named):

* `decay_frame(store, filter=None, *, as_of=None, params=None, threshold=DEFAULT_THRESHOLD)
  -> pl.DataFrame` (frame.py): one row per memory, columns `model.FRAME_COLUMNS`.
* `at_risk(store, *, threshold=DEFAULT_THRESHOLD, within_days=30, filter=None, as_of=None,
  params=None, limit=None) -> pl.DataFrame` (risk.py): rows of `decay_frame` not yet below
  the threshold that fall below within `within_days`, most important first (tier order of
  `schema.IMPORTANCE_TIERS`, then confidence, then sooner first).
* `what_if(store, params_a, params_b, *, threshold=DEFAULT_THRESHOLD,
  horizons=DEFAULT_HORIZONS, filter=None, as_of=None) -> WhatIf` (what_if.py).
* `decay_impact(store, query, config=None, *, filter=None, as_of=None, limit=10)
  -> DecayImpact` (impact.py): `config` with `use_decay` on vs off.
* `memory_timeline(store, memory_id, *, as_of=None, params=None, horizon_days=90)
  -> Timeline` (timeline.py).
* `r_curves(stabilities: Mapping[str, float], *, days=365, params=None) -> pl.DataFrame`
  (curves.py): columns `label`, `day` (0..days), `retrievability` for each S.
* `threshold_days(k, stability, threshold, fsrs_factor)` (curves.py): the closed form of
  the day composite `k * R(t)` drops below `threshold`: `S / f * ((k / threshold)^2 - 1)`,
  0 when already below, inf when S is infinite.
"""

from __future__ import annotations

from memory_core.decay_analysis.model import (
    DEFAULT_HORIZONS,
    DEFAULT_THRESHOLD,
    FRAME_COLUMNS,
    DecayImpact,
    ImpactRow,
    Timeline,
    TimelineEvent,
    WhatIf,
)

__all__ = [
    "DEFAULT_HORIZONS", "DEFAULT_THRESHOLD", "FRAME_COLUMNS", "DecayImpact", "ImpactRow",
    "Timeline", "TimelineEvent", "WhatIf",
]
