"""Decay analytics over a whole tenant, vectorised with polars and numpy (docs/design/decay.md):
what the Decay page, the CLI and notebooks show about forgetting.

* `decay_frame` (frame.py): one row per memory with every decay factor at a clock
  (`model.FRAME_COLUMNS`) and the day its composite falls below a threshold.
* `at_risk` (risk.py): the memories about to fall below it, most important first.
* `what_if` (what_if.py): counts below it at a few horizons under two parameter sets.
* `decay_impact` (impact.py): one query ranked with decay on and off, and why each memory
  moved.
* `memory_timeline` (timeline.py): one memory's events and its decay curve, the clock reset
  at each recall.
* `r_curves`, `threshold_days` (curves.py): retrievability curves and the closed form
  `S / f * ((k / threshold) ** 2 - 1)` of the day a composite `k * R(t)` drops below a
  threshold.

Heavy libraries (polars, LanceDB) load when a function runs, not on import.
"""

from __future__ import annotations

from memory_core.decay.analysis.curves import r_curves, threshold_days
from memory_core.decay.analysis.frame import decay_frame
from memory_core.decay.analysis.impact import decay_impact
from memory_core.decay.analysis.model import (
    DEFAULT_HORIZONS,
    DEFAULT_THRESHOLD,
    FRAME_COLUMNS,
    DecayImpact,
    ImpactRow,
    Timeline,
    TimelineEvent,
    WhatIf,
)
from memory_core.decay.analysis.risk import at_risk
from memory_core.decay.analysis.timeline import memory_timeline
from memory_core.decay.analysis.what_if import what_if

__all__ = [
    "DEFAULT_HORIZONS", "DEFAULT_THRESHOLD", "FRAME_COLUMNS", "DecayImpact", "ImpactRow",
    "Timeline", "TimelineEvent", "WhatIf", "at_risk", "decay_frame", "decay_impact",
    "memory_timeline", "r_curves", "threshold_days", "what_if",
]
