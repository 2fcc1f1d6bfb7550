"""Decay defaults and the FSRS retrievability curve (seed 003 ADR-002, DESIGN.md section 4).

Every default that decay uses is defined here, in one place:

* `STABILITY_BY_TYPE`: FSRS stability S in days given to a new memory of that type. Durable
  knowledge (principles, preferences, decisions) is remembered longer than chatter (threads,
  events, session summaries).
* `IMPORTANCE_STABILITY_FACTOR`: multiplies S by importance tier; constitutional memories never
  decay at all (their retrievability is 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from memory_core.errors import InvalidRecordError

if TYPE_CHECKING:
    from memory_core.records import Memory

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

#: Multiplier of S by importance tier (seed 003 ADR-002 tier anchors).
IMPORTANCE_STABILITY_FACTOR: dict[str, float] = {
    "constitutional": math.inf,
    "critical": 4.0,
    "important": 2.0,
    "normal": 1.0,
    "temporary": 0.25,
    "deprecated": 0.1,
}

#: The FSRS v4 retrievability constant of seed 003 ADR-002.
FSRS_FACTOR = 0.235


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


def retrievability(days: float, stability: float) -> float:
    """FSRS retrievability `R(t, S) = (1 + 0.235 * t / S) ** -0.5` (seed 003 ADR-002).

    >>> retrievability(0.0, 30.0)
    1.0
    >>> round(retrievability(30.0, 30.0), 4)
    0.8998
    """
    if stability <= 0:
        raise InvalidRecordError(f"stability must be positive days, got {stability!r}")
    t = max(0.0, days)
    return (1.0 + FSRS_FACTOR * t / stability) ** -0.5


#: Tier anchors of the decay composite (seed 003 ADR-002 "importance tier anchor").
#: Constitutional memories never decay: their composite is fixed at 1.
TIER_ANCHOR: dict[str, float] = {
    "constitutional": 1.0,
    "critical": 1.3,
    "important": 1.15,
    "normal": 1.0,
    "temporary": 0.8,
    "deprecated": 0.5,
}
USAGE_COEFFICIENT = 0.1  # usage = 1 + 0.1 * ln(1 + access_count)
USAGE_CAP = 1.5
PATTERN_BOOST = 1.2  # a pattern memory matching the query's context
CITATION_BOOST = 1.1  # cited (recalled) within CITATION_DAYS
CITATION_DAYS = 7.0


def usage_factor(access_count: int, *, coefficient: float = USAGE_COEFFICIENT,
                 cap: float = USAGE_CAP) -> float:
    """`min(cap, 1 + coefficient * ln(1 + access_count))` (seed 003 ADR-002).

    >>> usage_factor(0)
    1.0
    >>> round(usage_factor(10), 4)
    1.2398
    """
    return min(cap, 1.0 + coefficient * math.log1p(max(0, access_count)))


def edge_strength(strength: float, decay_rate: float, days_since_reinforced: float) -> float:
    """Decayed edge strength `strength * exp(-decay_rate * days)` (DESIGN.md section 4).

    >>> round(edge_strength(0.8, 0.01, 30.0), 4)
    0.5927
    """
    return strength * math.exp(-max(0.0, decay_rate) * max(0.0, days_since_reinforced))


@dataclass(frozen=True)
class DecayParams:
    """Every knob of the decay composite; the defaults are the module constants above."""

    usage_coefficient: float = USAGE_COEFFICIENT
    usage_cap: float = USAGE_CAP
    pattern_boost: float = PATTERN_BOOST
    citation_boost: float = CITATION_BOOST
    citation_days: float = CITATION_DAYS
    tier_anchor: dict[str, float] = field(default_factory=lambda: dict(TIER_ANCHOR))


@dataclass(frozen=True)
class DecayFactors:
    """The parts of one memory's composite, for explanations."""

    retrievability: float
    usage: float
    anchor: float
    pattern: float
    citation: float
    composite: float


def _days(later: datetime, earlier: datetime) -> float:
    return max(0.0, (later - earlier).total_seconds() / 86400.0)


def composite(memory: Memory, now: datetime, *, params: DecayParams | None = None,
              pattern_match: bool = False) -> DecayFactors:
    """Decay composite R x usage x tier anchor x pattern x citation (seed 003 ADR-002).

    t is days since the last access, or since creation if never accessed; S is the memory's
    stability (its type/importance default when missing). Constitutional memories never
    decay: every factor and the composite are 1.
    """
    params = params or DecayParams()
    if memory.importance == "constitutional":
        return DecayFactors(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    stability = memory.stability or default_stability(memory.memory_type, memory.importance)
    since = memory.last_accessed_at or memory.created_at
    r = retrievability(_days(now, since), stability)
    usage = usage_factor(memory.access_count, coefficient=params.usage_coefficient,
                         cap=params.usage_cap)
    anchor = params.tier_anchor.get(memory.importance, 1.0)
    pattern = params.pattern_boost if pattern_match and memory.memory_type == "pattern" else 1.0
    cited = (memory.last_accessed_at is not None
             and _days(now, memory.last_accessed_at) <= params.citation_days)
    citation = params.citation_boost if cited else 1.0
    value = r * usage * anchor * pattern * citation
    return DecayFactors(r, usage, anchor, pattern, citation, value)
