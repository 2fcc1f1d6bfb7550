"""Memories as a polars frame, one column per field: what tables on the pages show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.model.records import Memory

if TYPE_CHECKING:
    import polars as pl

#: The columns `memories_to_frame` leaves out: long or nested values a table cell can't show.
_FRAME_LEFT_OUT = ("vector", "metadata")


def memories_to_frame(memories: Sequence[Memory]) -> pl.DataFrame:
    """A polars frame of `memories`, one column per field (vectors and metadata left out).

    >>> m = Memory.new("Use uv", "preference")
    >>> memories_to_frame([m]).columns[:3]
    ['id', 'content', 'memory_type']
    """
    import polars as pl

    from memory_core.model.columns import names

    wanted = names(Memory, exclude=_FRAME_LEFT_OUT)
    rows = [{name: getattr(m, name) for name in wanted} for m in memories]
    for row in rows:
        row["tags"] = list(row["tags"])
    return pl.DataFrame(rows, schema=list(wanted) if not rows else None,
                        infer_schema_length=None)
