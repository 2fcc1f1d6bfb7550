"""The stability S (days) a new memory starts with, by type and importance (docs/design/decay.md).

A model-layer default: records use it to build new memories and `decay` uses it in the
retrievability curve, so it lives below both.

* `STABILITY_BY_TYPE`: FSRS stability S in days given to a new memory of that type. Durable
  knowledge (principles, preferences, decisions) is remembered longer than chatter (threads,
  events, session summaries).
* `IMPORTANCE_STABILITY_FACTOR`: multiplies S by importance tier; constitutional memories never
  decay at all (their retrievability is 1).
"""

from __future__ import annotations

import logging
import math

log = logging.getLogger(__name__)

#: Stability S (days) of a new memory, by memory type. Unknown types use `DEFAULT_STABILITY`.
STABILITY_BY_TYPE: dict[str, float] = {
    "principle": 365.0,
    "identity": 365.0,
    "preference": 180.0,
    "decision": 120.0,
    "decision_context": 120.0,
    "pattern": 120.0,
    "reflection": 90.0,
    "insight": 90.0,
    "lesson": 90.0,
    "learning": 90.0,
    "fact": 90.0,
    "skill_idea": 60.0,
    "topic": 45.0,
    "observation": 30.0,
    "thread": 21.0,
    "session_summary": 14.0,
    "event": 14.0,
}
DEFAULT_STABILITY = 30.0

#: Multiplier of S by importance tier.
IMPORTANCE_STABILITY_FACTOR: dict[str, float] = {
    "constitutional": math.inf,
    "critical": 4.0,
    "important": 2.0,
    "normal": 1.0,
    "temporary": 0.25,
    "deprecated": 0.1,
}


def default_stability(memory_type: str, importance: str) -> float:
    """Stability S in days for a new memory; constitutional memories get a very large S.

    >>> default_stability("preference", "important")
    360.0
    """
    base = STABILITY_BY_TYPE.get(memory_type, DEFAULT_STABILITY)
    factor = IMPORTANCE_STABILITY_FACTOR.get(importance, 1.0)
    if math.isinf(factor):
        return 1e9  # float32-safe stand-in for "never decays"
    return base * factor


def is_valid_stability(value: object) -> bool:
    """Whether `value` is a stability memlens writes: a finite number of days above 0.

    >>> is_valid_stability(30), is_valid_stability(-5), is_valid_stability(float("nan"))
    (True, False, False)
    """
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


#: Memories whose bad stored stability was reported already (one warning each per process).
_REPORTED: set[str] = set()


def usable_stability(stored: float | None, memory_type: str, importance: str, *,
                     memory_id: str = "?") -> float:
    """The stability S a memory decays with: `stored` when valid (`is_valid_stability`),
    else its type and importance default. A stored value that is not valid (a negative one
    an older memlens let in) is logged once per memory, not raised: one bad row must not
    fail the reads of the whole store.

    >>> usable_stability(None, "fact", "normal"), usable_stability(12.0, "fact", "normal")
    (90.0, 12.0)
    """
    if stored is not None and is_valid_stability(stored):
        return float(stored)
    if stored is not None and stored != 0 and memory_id not in _REPORTED:
        _REPORTED.add(memory_id)
        log.warning("memory %s has stability %r, not a positive number of days; decay uses "
                    "its default (%s days) until it is fixed: `memlens edit %s --stability "
                    "DAYS`", memory_id, stored, default_stability(memory_type, importance),
                    memory_id)
    return default_stability(memory_type, importance)
