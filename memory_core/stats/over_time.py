"""`memories_over_time`: memories written per period and type, for the Overview's chart,
folded per batch of two columns (partial counts per batch, summed at the end)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from memory_core.store import MemoryStore
from memory_core.store.streams import ANY_STATUS

if TYPE_CHECKING:
    import polars as pl


def memories_over_time(store: MemoryStore, *, every: str = "1w") -> pl.DataFrame:
    """Memories written per period and type (any status): columns period, memory_type,
    count, sorted by period then type. `every` is a polars duration (`1d`, `1w`, `1mo`)."""
    import polars as pl

    parts = []
    for batch in store.streams.batches(["created_at", "memory_type"], ANY_STATUS):
        frame = cast(pl.DataFrame, pl.from_arrow(batch))  # a batch is always a frame
        parts.append(frame.group_by(pl.col("created_at").dt.truncate(every).alias("period"),
                                    "memory_type").len(name="count"))
    if not parts:
        return pl.DataFrame(schema={"period": pl.Datetime("us", "UTC"),
                                    "memory_type": pl.Utf8, "count": pl.UInt32})
    return (pl.concat(parts).group_by("period", "memory_type")
            .agg(pl.col("count").sum().cast(pl.UInt32)).sort("period", "memory_type"))
