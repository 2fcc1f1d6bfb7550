"""Counts by value in the order pages show them (most frequent first, ties by value), and a
running count folded over Arrow arrays one batch at a time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
