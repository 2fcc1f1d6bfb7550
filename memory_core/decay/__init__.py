"""Decay defaults and the FSRS retrievability curve (docs/design/decay.md).

The composite combines FSRS v4 retrievability with usage, tier, pattern and citation
factors, as ADR-002 in docs/design/seeds.md decided.

Every default that decay uses is defined here, except the stability a new memory starts with
(`STABILITY_BY_TYPE`, `IMPORTANCE_STABILITY_FACTOR`, `default_stability`), which lives in
`memory_core.model.stability` (the model layer builds records with it) and is re-exported here.

These formulas sit below retrieval, which ranks with them. The analytics over a whole
tenant, which rank with retrieval in turn, are the sub-package `memory_core.decay.analysis`
(never imported from here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from memory_core.model.errors import InvalidRecordError
from memory_core.model.stability import (  # noqa: F401  (defaults re-exported: one place to read)
    DEFAULT_STABILITY,
    IMPORTANCE_STABILITY_FACTOR,
    STABILITY_BY_TYPE,
    default_stability,
    usable_stability,
)

if TYPE_CHECKING:
    from memory_core.model.records import Memory

#: The FSRS v4 retrievability constant.
FSRS_FACTOR = 0.235


def retrievability(days: float, stability: float, factor: float = FSRS_FACTOR) -> float:
    """FSRS retrievability `R(t, S) = (1 + 0.235 * t / S) ** -0.5` (docs/design/decay.md);
    `factor` replaces 0.235 in a what-if.

    >>> retrievability(0.0, 30.0)
    1.0
    >>> round(retrievability(30.0, 30.0), 4)
    0.8998
    """
    if stability <= 0:
        raise InvalidRecordError(f"stability must be positive days, got {stability!r}")
    t = max(0.0, days)
    return (1.0 + factor * t / stability) ** -0.5


#: Tier anchors of the decay composite, by importance (docs/design/decay.md).
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
CITATION_BOOST = 1.1  # cited (a `cite` event) within CITATION_DAYS
CITATION_DAYS = 7.0


def usage_factor(access_count: int, *, coefficient: float = USAGE_COEFFICIENT,
                 cap: float = USAGE_CAP) -> float:
    """Usage factor `min(cap, 1 + coefficient * ln(1 + access_count))`.

    >>> usage_factor(0)
    1.0
    >>> round(usage_factor(10), 4)
    1.2398
    """
    return min(cap, 1.0 + coefficient * math.log1p(max(0, access_count)))


def edge_strength(strength: float, decay_rate: float, days_since_reinforced: float) -> float:
    """Decayed edge strength `strength * exp(-decay_rate * days)` (docs/design/decay.md).

    >>> round(edge_strength(0.8, 0.01, 30.0), 4)
    0.5927
    """
    return strength * math.exp(-max(0.0, decay_rate) * max(0.0, days_since_reinforced))


@dataclass(frozen=True)
class DecayParams:
    """Every knob of the decay composite; the defaults are the module constants above.

    `fsrs_factor` and `stability_scale` (every memory's S multiplied by it) exist for
    what-if questions (the Decay page's sliders); ranking presets keep their defaults.
    """

    usage_coefficient: float = USAGE_COEFFICIENT
    usage_cap: float = USAGE_CAP
    pattern_boost: float = PATTERN_BOOST
    citation_boost: float = CITATION_BOOST
    citation_days: float = CITATION_DAYS
    tier_anchor: dict[str, float] = field(default_factory=lambda: dict(TIER_ANCHOR))
    fsrs_factor: float = FSRS_FACTOR
    stability_scale: float = 1.0


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


def is_cited(cited_at: datetime | None, now: datetime, params: DecayParams) -> bool:
    """Whether a `cite` event at `cited_at` earns the citation factor at `now`: it is at
    most `citation_days` old and not after `now` (a review's decay clock may be earlier)."""
    if cited_at is None or cited_at > now:
        return False
    return _days(now, cited_at) <= params.citation_days


def composite(memory: Memory, now: datetime, *, params: DecayParams | None = None,
              pattern_match: bool = False, cited_at: datetime | None = None) -> DecayFactors:
    """Decay composite R x usage x tier anchor x pattern x citation (docs/design/decay.md).

    t is days since the last access, or since creation if never accessed; S is the memory's
    stability (its type/importance default when missing) times `params.stability_scale`;
    a stored S that is not a positive number of days is replaced by that default, with a
    warning (`usable_stability`);
    `cited_at` is the time of the memory's latest `cite` event, if any (the events table:
    `store.events.latest("cite")`). Constitutional memories never decay: every factor
    and the composite are 1.
    """
    params = params or DecayParams()
    if memory.importance == "constitutional":
        return DecayFactors(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    stability = usable_stability(memory.stability, memory.memory_type, memory.importance,
                                 memory_id=memory.id)
    since = memory.last_accessed_at or memory.created_at
    r = retrievability(_days(now, since), stability * params.stability_scale,
                       params.fsrs_factor)
    usage = usage_factor(memory.access_count, coefficient=params.usage_coefficient,
                         cap=params.usage_cap)
    anchor = params.tier_anchor.get(memory.importance, 1.0)
    pattern = params.pattern_boost if pattern_match and memory.memory_type == "pattern" else 1.0
    citation = params.citation_boost if is_cited(cited_at, now, params) else 1.0
    value = r * usage * anchor * pattern * citation
    return DecayFactors(r, usage, anchor, pattern, citation, value)
