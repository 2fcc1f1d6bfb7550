"""`decay_frame`: every memory's decay factors at one clock, computed for the whole tenant at
once with polars and numpy (docs/design/decay.md).

It agrees with `memory_core.decay.composite` memory by memory (a test checks it to 1e-9):
t is days from the last access (or creation) to `as_of`, S the stored stability (its
type/importance default when missing) times `stability_scale`, and the citation factor comes
from the memory's latest `cite` event at or before `as_of`. The pattern factor is 1: it
depends on a query.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from memory_core.decay import DecayParams
from memory_core.decay.analysis.curves import check_params, check_threshold, threshold_days_array
from memory_core.decay.analysis.model import DEFAULT_THRESHOLD, FRAME_COLUMNS
from memory_core.model.stability import default_stability
from memory_core.model.values import as_utc, utcnow

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore

log = logging.getLogger(__name__)

#: Columns read from the memories table (`confidence` orders `at_risk`).
SCANNED = ("id", "content", "memory_type", "importance", "status", "project", "agent",
           "created_at", "last_accessed_at", "access_count", "stability", "confidence")
#: Columns the frame has beyond the contract's `FRAME_COLUMNS`.
EXTRA_COLUMNS = ("confidence",)
_DAY_US = 86_400 * 1_000_000
#: The last instant `falls_below_on` can hold (Python datetimes end in year 9999).
_LAST_DAY = datetime(9999, 12, 31, tzinfo=UTC)


def clock(as_of: datetime | str | None) -> datetime:
    """The decay clock: `as_of` as UTC, now when None."""
    return as_utc(as_of) or utcnow()


def load_memories(store: MemoryStore, filter: Filter | None, as_of: datetime
                  ) -> pl.DataFrame:
    """The memories `filter` selects (active only by default), sorted by id, with
    `cited_at`: each one's latest `cite` event at or before `as_of` (null when none)."""
    import polars as pl

    memories = pl.DataFrame(store.scan(SCANNED, filter))
    cites = pl.DataFrame(store.events.latest(
        "cite", until=as_of + timedelta(microseconds=1))).select(
        pl.col("memory_id").alias("id"), pl.col("at").alias("cited_at"))
    return (memories.join(cites, on="id", how="left")
            .with_columns(pl.col("access_count").cast(pl.Int64),
                          pl.col("stability").cast(pl.Float64),
                          pl.col("confidence").cast(pl.Float64))
            .sort("id"))


def _default_stability(memories: pl.DataFrame) -> pl.Expr:
    """Each row's default stability, from `default_stability` of each distinct (type,
    importance) pair (a few dozen calls, whatever the number of memories)."""
    import polars as pl

    pairs = memories.select("memory_type", "importance").unique()
    table = {(t, i): default_stability(t, i) for t, i in pairs.iter_rows()}
    keys = [f"{t}\x1f{i}" for t, i in table]
    key = pl.concat_str([pl.col("memory_type"), pl.col("importance")], separator="\x1f")
    return key.replace_strict(keys, list(table.values()), default=None,
                              return_dtype=pl.Float64)


def _report_bad_stability(memories: pl.DataFrame) -> None:
    """Log the memories whose stored stability is not a positive number of days (zero and
    null mean "the default" and are not reported)."""
    import polars as pl

    column = pl.col("stability")
    bad = memories.filter(column.is_not_null() & (column != 0)
                          & ~((column > 0) & column.is_finite()))
    if bad.height:
        first = bad.row(0, named=True)
        log.warning("%d memories have a stability that is not a positive number of days "
                    "(e.g. %s: %r); decay uses their default until they are fixed: `memlens "
                    "edit ID --stability DAYS`", bad.height, first["id"], first["stability"])


def with_factors(memories: pl.DataFrame, as_of: datetime, params: DecayParams
                 ) -> pl.DataFrame:
    """`memories` (as `load_memories` reads them) with the factor columns at `as_of`:
    stability, days_since, retrievability, usage, anchor, citation, composite,
    never_decays. Constitutional memories get 1 for every factor."""
    import polars as pl

    never = pl.col("importance") == "constitutional"
    # a stored S that is not a positive number of days (NaN compares above every number in
    # polars) decays with the default, as `usable_stability` does for one memory
    stored = pl.when((pl.col("stability") > 0) & pl.col("stability").is_finite()).then(
        pl.col("stability"))
    _report_bad_stability(memories)
    since = pl.coalesce("last_accessed_at", "created_at")
    days = ((pl.lit(as_of) - since).dt.total_microseconds().cast(pl.Float64)
            / 1e6 / 86400.0).clip(lower_bound=0.0)
    cite_age = (pl.lit(as_of) - pl.col("cited_at")).dt.total_microseconds().cast(pl.Float64)
    cited = (pl.col("cited_at").is_not_null() & (pl.col("cited_at") <= pl.lit(as_of))
             & (cite_age / 1e6 / 86400.0 <= params.citation_days))
    frame = memories.with_columns(
        stability=pl.coalesce(stored, _default_stability(memories)) * params.stability_scale,
        days_since=days,
        never_decays=never,
    )
    r = (1.0 + params.fsrs_factor * pl.col("days_since") / pl.col("stability")) ** -0.5
    usage = pl.min_horizontal(
        pl.lit(params.usage_cap),
        1.0 + params.usage_coefficient * pl.col("access_count").clip(lower_bound=0)
        .cast(pl.Float64).log1p())
    anchor = pl.col("importance").replace_strict(
        params.tier_anchor, default=1.0, return_dtype=pl.Float64)
    citation = pl.when(cited).then(pl.lit(params.citation_boost)).otherwise(pl.lit(1.0))
    one = pl.lit(1.0)
    frame = frame.with_columns(
        retrievability=pl.when(never).then(one).otherwise(r),
        usage=pl.when(never).then(one).otherwise(usage),
        anchor=pl.when(never).then(one).otherwise(anchor),
        citation=pl.when(never).then(one).otherwise(citation),
    )
    return frame.with_columns(composite=pl.col("retrievability") * pl.col("usage")
                              * pl.col("anchor") * pl.col("citation"))


def days_to_threshold(frame: pl.DataFrame, as_of: datetime, params: DecayParams,
                      threshold: float) -> np.ndarray:
    """Days after `as_of` until each memory's composite is below `threshold` with no further
    access: 0 when already below, inf when it never decays.

    With K = usage x anchor x citation, the composite is `K * R(t0 + t)` (t0 = days_since),
    so the crossing is `threshold_days(K) - t0`. A citation expires `citation_days` after
    its cite event (at t = e): when the crossing with the boost would come after e, the
    composite without it crosses at `threshold_days(K / boost) - t0`, or at e itself if that
    day has already passed (the expiry is what drops it below).
    """
    t0 = frame["days_since"].to_numpy()
    stability = frame["stability"].to_numpy()
    base = (frame["usage"] * frame["anchor"]).to_numpy()
    citation = frame["citation"].to_numpy()
    f = params.fsrs_factor
    with_cite = np.maximum(threshold_days_array(base * citation, stability, threshold, f) - t0,
                           0.0)
    without = np.maximum(threshold_days_array(base, stability, threshold, f) - t0, 0.0)
    cited_at = frame["cited_at"].dt.epoch("us").to_numpy().astype(np.float64)  # NaN if none
    as_of_us = (as_of - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    expires = params.citation_days - (as_of_us - cited_at) / _DAY_US
    cited = citation != 1.0
    piecewise = np.where(with_cite < expires, with_cite, np.maximum(without, expires))
    out = np.where(cited, piecewise, without)
    below_now = frame["composite"].to_numpy() < threshold
    out = np.where(below_now, 0.0, out)
    never: np.ndarray = np.where(frame["never_decays"].to_numpy(), np.inf, out)
    return never


def with_threshold(frame: pl.DataFrame, as_of: datetime, params: DecayParams,
                   threshold: float) -> pl.DataFrame:
    """`frame` (from `with_factors`) with `days_to_threshold` and `falls_below_on` (null
    when never, or past year 9999)."""
    import polars as pl

    days = days_to_threshold(frame, as_of, params, threshold)
    last = (_LAST_DAY - as_of) / timedelta(days=1)
    shown = np.isfinite(days) & (days <= last)
    offset_us = np.round(np.where(shown, days, 0.0) * _DAY_US).astype(np.int64)
    return frame.with_columns(
        days_to_threshold=pl.Series(days, dtype=pl.Float64),
        _shown=pl.Series(shown, dtype=pl.Boolean),
        _offset=pl.Series(offset_us, dtype=pl.Int64).cast(pl.Duration("us")),
    ).with_columns(
        falls_below_on=pl.when(pl.col("_shown")).then(pl.lit(as_of) + pl.col("_offset"))
        .otherwise(pl.lit(None, dtype=pl.Datetime("us", "UTC"))),
    ).drop("_shown", "_offset")


def decay_frame(store: MemoryStore, filter: Filter | None = None, *,
                as_of: datetime | None = None, params: DecayParams | None = None,
                threshold: float = DEFAULT_THRESHOLD) -> pl.DataFrame:
    """One row per memory of the filtered tenant (active only by default), sorted by id:
    the columns of `model.FRAME_COLUMNS` (and `confidence`), every decay factor at `as_of`
    (now by default) under `params`, and when the composite falls below `threshold` if the
    memory is not accessed again.

    Example: `decay_frame(store, Filter(project="herd"), threshold=0.6)
    .filter(pl.col("days_to_threshold") < 30)`.
    """
    params = params or DecayParams()
    check_params(params)
    check_threshold(threshold)
    as_of = clock(as_of)
    frame = with_factors(load_memories(store, filter, as_of), as_of, params)
    frame = with_threshold(frame, as_of, params, threshold)
    return frame.select(*FRAME_COLUMNS, *EXTRA_COLUMNS)

