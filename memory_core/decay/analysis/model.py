"""The values decay analytics return (docs/design/decay.md): plain frozen data and polars
frames, so the CLI, the Decay page and notebooks read the same things.

Column contract of `decay_frame` (one row per memory of the filtered tenant), kept in
`FRAME_COLUMNS`:

* id, content, memory_type, importance, status, project, agent (str): the memory
* created_at, last_accessed_at, cited_at (datetime UTC, nullable): cited_at is the latest
  `cite` event at or before `as_of`
* access_count (int): recalls so far
* stability (float): S in days actually used (stored or default, times `stability_scale`)
* days_since (float): t, days from the last access (or creation) to `as_of`
* retrievability, usage, anchor, citation, composite (float): the factors and their
  product (pattern is 1: it depends on a query)
* never_decays (bool): constitutional: every factor 1, never at risk
* days_to_threshold (float): days after `as_of` until composite < threshold with no
  further access; 0 when already below, inf when never
* falls_below_on (datetime UTC, nullable): `as_of + days_to_threshold`, null when never
  (or past year 9999)

The frame also carries `confidence` (float, nullable), which orders `at_risk`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

#: A memory is "at risk" when its composite falls below this. 0.5: the agents are half as
#: likely to be shown it as a fresh memory of the same tier (document any other choice).
DEFAULT_THRESHOLD = 0.5
#: The horizons (days after the decay clock) the what-if compares, as the Decay page shows.
DEFAULT_HORIZONS: tuple[int, ...] = (0, 30, 90)

FRAME_COLUMNS: tuple[str, ...] = (
    "id", "content", "memory_type", "importance", "status", "project", "agent",
    "created_at", "last_accessed_at", "cited_at", "access_count", "stability", "days_since",
    "retrievability", "usage", "anchor", "citation", "composite", "never_decays",
    "days_to_threshold", "falls_below_on",
)


@dataclass(frozen=True)
class WhatIf:
    """How many memories are below the threshold at each horizon under two parameter sets.

    `frame` columns: `group` ("all", then each memory_type and each importance tier, as
    "type:NAME" / "tier:NAME"), `horizon` (days), `below_a`, `below_b`, `delta` (b - a).
    """

    frame: pl.DataFrame
    threshold: float
    horizons: tuple[int, ...]
    as_of: datetime
    memories: int


@dataclass(frozen=True)
class ImpactRow:
    """One memory of a query's ranking with decay on vs off."""

    id: str
    content: str
    rank_with: int | None  # 1-based; None when decay pushed it out of the top `limit`
    rank_without: int | None
    score_with: float | None
    score_without: float | None
    composite: float
    #: the factor that moved it most ("retrievability", "usage", "anchor", "pattern",
    #: "citation"): the one whose log is farthest from 0; "none" when every factor is 1
    main_factor: str
    factors: dict[str, float] = field(default_factory=dict)

    @property
    def shift(self) -> int | None:
        """rank_without - rank_with: positive when decay moved it up; None when it is in
        only one of the two rankings."""
        if self.rank_with is None or self.rank_without is None:
            return None
        return self.rank_without - self.rank_with


@dataclass(frozen=True)
class DecayImpact:
    """A query ranked with and without decay (same config otherwise), at one decay clock."""

    query: str
    as_of: datetime
    rows: tuple[ImpactRow, ...]  # ordered by rank_with, then those only ranked without

    def to_frame(self) -> pl.DataFrame:
        """One row per memory: id, content, rank_with, rank_without, shift, scores,
        composite, main_factor."""
        import polars as pl

        return pl.DataFrame([{"id": r.id, "content": r.content, "rank_with": r.rank_with,
                              "rank_without": r.rank_without, "shift": r.shift,
                              "score_with": r.score_with, "score_without": r.score_without,
                              "composite": r.composite, "main_factor": r.main_factor}
                             for r in self.rows],
                            schema={"id": pl.String, "content": pl.String,
                                    "rank_with": pl.Int64, "rank_without": pl.Int64,
                                    "shift": pl.Int64, "score_with": pl.Float64,
                                    "score_without": pl.Float64, "composite": pl.Float64,
                                    "main_factor": pl.String})


@dataclass(frozen=True)
class TimelineEvent:
    """Something that happened to one memory: `kind` is one of created, recall, cite,
    correct, edge (an edge added to or from it), status (archived, restored, superseded,
    merged, ...), edit; `resets` is True when it resets the decay clock (a recall)."""

    at: datetime
    kind: str
    detail: str
    actor: str | None = None
    resets: bool = False
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Timeline:
    """One memory's history and its decay curve from creation to `as_of + horizon_days`.

    `curve` columns: `at` (datetime UTC), `day` (days since creation, float),
    `retrievability`, `composite` (usage/anchor/citation as they were at each point),
    sampled daily and at every reset (and the instant before it); then `access_count`,
    `usage` and `citation` at each point.
    """

    memory_id: str
    events: tuple[TimelineEvent, ...]  # oldest first
    curve: pl.DataFrame
    as_of: datetime
    never_decays: bool
