"""`what_if`: how many memories two decay parameter sets put below the threshold at a few
horizons, overall and per memory type and importance tier (docs/design/decay.md), for the
Decay page's sliders. Each horizon is one vectorised pass over the tenant."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memory_core.decay import DecayParams
from memory_core.decay.analysis.curves import check_params, check_threshold
from memory_core.decay.analysis.frame import clock, load_memories, with_factors
from memory_core.decay.analysis.model import DEFAULT_HORIZONS, DEFAULT_THRESHOLD, WhatIf
from memory_core.model.errors import InvalidConfigError
from memory_core.model.schema import IMPORTANCE_TIERS

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore


def _check_horizons(horizons: Sequence[int]) -> tuple[int, ...]:
    out = tuple(horizons)
    bad = [h for h in out if isinstance(h, bool) or not isinstance(h, int) or h < 0]
    if not out or bad:
        raise InvalidConfigError(
            f"horizons must be whole numbers of days >= 0, got {list(out)!r}; the default "
            f"is {list(DEFAULT_HORIZONS)}")
    return tuple(sorted(set(out)))


def below(memories: pl.DataFrame, as_of: datetime, params: DecayParams, threshold: float
          ) -> pl.Series:
    """Whether each memory's composite at `as_of` is below `threshold` (no access after its
    last one; memories that never decay are never below)."""
    import polars as pl

    frame = with_factors(memories, as_of, params)
    return frame.select(~pl.col("never_decays") & (pl.col("composite") < threshold)
                        ).to_series()


def what_if(store: MemoryStore, params_a: DecayParams, params_b: DecayParams, *,
            threshold: float = DEFAULT_THRESHOLD,
            horizons: Sequence[int] = DEFAULT_HORIZONS, filter: Filter | None = None,
            as_of: datetime | None = None) -> WhatIf:
    """Counts of memories below `threshold` at `as_of + h` days for each horizon h, under
    `params_a` and `params_b`, assuming nobody recalls them meanwhile: group "all", then
    "type:NAME" per memory type (sorted), then "tier:NAME" per importance tier (strongest
    first); only groups with memories. Memories that never decay are never below.

    Example: `what_if(store, DecayParams(), DecayParams(stability_scale=2.0)).frame`.
    """
    import polars as pl

    check_params(params_a)
    check_params(params_b)
    check_threshold(threshold)
    steps = _check_horizons(horizons)
    as_of = clock(as_of)
    memories = load_memories(store, filter, as_of)
    flags = {}
    for h in steps:
        at = as_of + timedelta(days=h)
        flags[f"a{h}"] = below(memories, at, params_a, threshold)
        flags[f"b{h}"] = below(memories, at, params_b, threshold)
    marked = memories.select("memory_type", "importance").with_columns(
        **{name: series for name, series in flags.items()})
    counts = [pl.col(name).sum().cast(pl.Int64).alias(name) for name in flags]
    overall = marked.select(pl.lit("all").alias("group"), *counts)
    types = (marked.group_by("memory_type").agg(*counts).sort("memory_type")
             .select((pl.lit("type:") + pl.col("memory_type")).alias("group"), *flags))
    tier_rank = {t: i for i, t in enumerate(IMPORTANCE_TIERS)}
    tiers = (marked.group_by("importance").agg(*counts)
             .sort(pl.col("importance").replace_strict(tier_rank, default=len(tier_rank),
                                                       return_dtype=pl.Int64), "importance")
             .select((pl.lit("tier:") + pl.col("importance")).alias("group"), *flags))
    wide = pl.concat([overall, types, tiers]) if memories.height else overall
    rows = pl.concat([
        wide.select("group", pl.lit(h, dtype=pl.Int64).alias("horizon"),
                    pl.col(f"a{h}").alias("below_a"), pl.col(f"b{h}").alias("below_b"))
        for h in steps])
    order = wide.select("group").with_row_index("_order")
    frame = (rows.join(order, on="group").sort("_order", "horizon").drop("_order")
             .with_columns(delta=pl.col("below_b") - pl.col("below_a")))
    return WhatIf(frame=frame, threshold=threshold, horizons=steps, as_of=as_of,
                  memories=memories.height)

