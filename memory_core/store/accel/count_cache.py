"""How many rows match a predicate, remembered for the table version they were counted at.

`search()` asks, on every query, how many matching memories have no vector yet (so that it
can say the vector engine cannot see them). The answer changes only when the table does, and
counting scans the table: CPU taken from the engines that run beside it on a small machine.
Any write makes a new table version, and a new version empties the cache,
so a count is never older than the table it is asked of.
"""

from __future__ import annotations

import threading
from typing import Any

#: Predicates remembered per version; past it the oldest is dropped.
MAX_PREDICATES = 256


class VersionCounts:
    """`count_rows(predicate)` of a LanceDB table, cached until the table's version changes."""

    def __init__(self, *, enabled: bool = True) -> None:
        self._enabled = enabled  # off: every count is LanceDB's `count_rows`
        self._version: tuple[int, int] | None = None
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()  # the pages share a store between sessions' threads

    def count(self, table: Any, predicate: str, latest: int | None = None) -> int:
        """Rows of `table` (at its latest version: the store's tables check for a newer
        version on every read) matching `predicate`. `latest`: the table's latest version
        when the caller knows it without asking LanceDB (`store.accel.latest.version()`)."""
        if not self._enabled:
            return int(table.count_rows(predicate))
        version = (id(table), int(table.version) if latest is None else latest)
        with self._lock:
            if version != self._version:
                self._version, self._counts = version, {}
            elif predicate in self._counts:
                return self._counts[predicate]
        counted = int(table.count_rows(predicate))
        with self._lock:
            # a write meanwhile may have made the count newer than `version`: keep it only
            # while that version is still the one the cache is for, and a later call sees
            # the new version and starts afresh
            if self._version == version:
                if len(self._counts) >= MAX_PREDICATES:
                    self._counts.pop(next(iter(self._counts)))
                self._counts[predicate] = counted
        return counted

    def invalidate(self) -> None:
        """Forget every count."""
        with self._lock:
            self._version, self._counts = None, {}
