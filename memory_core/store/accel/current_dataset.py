"""A table as a Lance dataset at its latest version, found without a LanceDB hop.

Used for the memories table (`store.accel.latest`) and the events table (`EventLog`). A search
asks for the memories table's version three times (the session order, the counts and the
row reads each keep something per version). LanceDB answers `table.version` on its
background event loop: a thread hand-off, slowest beside a running query, because the
loop's thread has to win a core and the GIL. The Lance dataset answers `latest_version` in
the calling thread (it lists the table's versions, the check LanceDB makes too), an order of
magnitude faster. So the store keeps one dataset, checks it out again
when a newer version is listed (any write, from this process or another), and every
per-version cache reads its version here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from memory_core.model.errors import ObjectStorageStalledError
from memory_core.store import stall_watch


class LatestDataset:
    """A LanceDB table's Lance dataset, kept at the table's latest version."""

    def __init__(self, table_of: Callable[[], Any], *, enabled: bool = True) -> None:
        self._table_of = table_of  # the store's current handle (tables can be reopened)
        self._enabled = enabled  # off: no dataset, callers use LanceDB's own calls
        self._known: tuple[Any, Any] | None = None  # (table handle, dataset)
        self._lock = threading.Lock()  # the pages share a store between sessions' threads

    def current(self) -> Any | None:
        """The dataset at the latest version, or None when the table has none to give
        (callers then use LanceDB's own calls)."""
        if not self._enabled:
            return None
        table = self._table_of()
        with self._lock:
            known = self._known
            try:  # Lance's own calls: bounded like LanceDB's on object storage
                dataset = stall_watch.bounded(lambda: _latest(table, known))
            except ObjectStorageStalledError:
                raise
            except Exception:  # noqa: BLE001 - no dataset: callers fall back
                self._known = None
                return None
            self._known = (table, dataset)
            return dataset

    def version(self) -> int:
        """The table's latest version."""
        dataset = self.current()
        return int(dataset.version) if dataset is not None else int(self._table_of().version)

    def invalidate(self) -> None:
        """Forget the dataset; the next call opens it again from the table."""
        with self._lock:
            self._known = None


def _latest(table: Any, known: tuple[Any, Any] | None) -> Any:
    """`table`'s dataset at its latest version (`known`'s, checked out again if newer)."""
    if known is None or known[0] is not table:
        return table.to_lance()
    dataset = known[1]
    latest = int(dataset.latest_version)
    return dataset.checkout_version(latest) if latest != int(dataset.version) else dataset
