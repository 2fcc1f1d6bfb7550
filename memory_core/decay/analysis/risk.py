"""`at_risk`: the memories about to fall below the decay threshold, most important first
(docs/design/decay.md), for the Decay page's review queue and the CLI."""

from __future__ import annotations

import math
from datetime import datetime
from typing import TYPE_CHECKING

from memory_core.decay import DecayParams
from memory_core.decay.analysis.frame import decay_frame
from memory_core.decay.analysis.model import DEFAULT_THRESHOLD
from memory_core.model.errors import InvalidConfigError
from memory_core.model.schema import IMPORTANCE_TIERS

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore


def _check_window(within_days: float, limit: int | None) -> None:
    if isinstance(within_days, bool) or not isinstance(within_days, int | float) \
            or not within_days >= 0 or math.isinf(within_days):
        raise InvalidConfigError(
            f"within_days must be a finite number of days >= 0, got {within_days!r}; "
            f"e.g. 30 for the memories that fall below within a month")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise InvalidConfigError(f"limit must be a whole number >= 1 or None, got {limit!r}")


def at_risk(store: MemoryStore, *, threshold: float = DEFAULT_THRESHOLD,
            within_days: float = 30, filter: Filter | None = None,
            as_of: datetime | None = None, params: DecayParams | None = None,
            limit: int | None = None) -> pl.DataFrame:
    """Rows of `decay_frame` not yet below `threshold` whose composite falls below it within
    `within_days` of `as_of` if nobody recalls them: the tiers of
    `schema.IMPORTANCE_TIERS` strongest first, then higher confidence (unknown last), then
    sooner first, then id. Constitutional memories never decay, so never appear; only active
    memories unless `filter` asks for others.

    Example: `at_risk(store, within_days=14, limit=20)["id"]`.
    """
    import polars as pl

    _check_window(within_days, limit)
    frame = decay_frame(store, filter, as_of=as_of, params=params, threshold=threshold)
    rank = {tier: i for i, tier in enumerate(IMPORTANCE_TIERS)}
    risky = (frame.filter(~pl.col("never_decays") & (pl.col("composite") >= threshold)
                          & (pl.col("days_to_threshold") <= within_days))
             .with_columns(_tier=pl.col("importance").replace_strict(
                 rank, default=len(rank), return_dtype=pl.Int64))
             .sort(["_tier", "confidence", "days_to_threshold", "id"],
                   descending=[False, True, False, False], nulls_last=True)
             .drop("_tier"))
    return risky if limit is None else risky.head(limit)
