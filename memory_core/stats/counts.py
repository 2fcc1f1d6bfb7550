"""Counts by value in the order pages show them (most frequent first, ties by value), and
running counts folded over streamed batches: of one column's values, or of combinations of
several columns' values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

#: How a missing value (null) is named in the counts.
NONE = "(none)"


def labelled(counts: Mapping[Any, int]) -> dict[str, int]:
    """value -> count as text (null as `NONE`), most frequent first, ties by value (a null
    before any value).

    >>> labelled({"b": 2, None: 1, "a": 2, "c": 1})
    {'a': 2, 'b': 2, '(none)': 1, 'c': 1}
    """
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] is not None, str(kv[0])))
    return {NONE if k is None else str(k): int(v) for k, v in ordered}


class ValueCounts:
    """A running count of the values of one column across batches."""

    def __init__(self) -> None:
        self._counts: dict[Any, int] = {}

    def add(self, values: pa.Array | pa.ChunkedArray) -> None:
        """Count the values of one batch (nulls included)."""
        if len(values) == 0:
            return
        counted = pc.value_counts(values)
        for value, count in zip(counted.field("values").to_pylist(),
                                counted.field("counts").to_pylist(), strict=True):
            self._counts[value] = self._counts.get(value, 0) + int(count)

    @property
    def raw(self) -> dict[Any, int]:
        """value -> count, nulls under None, in no particular order."""
        return dict(self._counts)

    def labelled(self) -> dict[str, int]:
        """The counts as `labelled` orders and names them."""
        return labelled(self._counts)


class Combinations:
    """Rows per combination of values of some columns, folded over polars frames batch by
    batch. The table is small where the columns have few values (the counted columns of a
    store of a million memories: 1,622 combinations) and never has more rows than were
    added; any column's counts are sums over it."""

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = tuple(columns)
        self._parts: list[pl.DataFrame] = []

    def add(self, frame: pl.DataFrame) -> None:
        """Count one batch's rows by combination."""
        self._parts.append(frame.group_by(self.columns).len(name="n"))

    def table(self) -> pl.DataFrame:
        """Every combination seen and its rows (column `n`)."""
        if not self._parts:
            return pl.DataFrame(schema={**{c: pl.Utf8 for c in self.columns}, "n": pl.UInt32})
        self._parts = [pl.concat(self._parts).group_by(self.columns).agg(pl.col("n").sum())]
        return self._parts[0]

    def by(self, column: str, **equal: str) -> dict[Any, int]:
        """value of `column` -> rows, over the combinations whose columns hold the values
        `equal` names (`by("project", status="active")`)."""
        table = self.table()
        for name, value in equal.items():
            table = table.filter(pl.col(name) == value)
        grouped = table.group_by(column).agg(pl.col("n").sum())
        return dict(zip(grouped[column].to_list(), grouped["n"].to_list(), strict=True))
