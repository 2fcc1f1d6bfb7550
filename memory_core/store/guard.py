"""The write guard of a `MemoryStore`: every write under the lock, with its journal, and the
rollback of a writer that died half way (the lock and journal themselves: `store.lock`)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from memory_core.store.lock import WriteLock
from memory_core.store.scratch import sweep

if TYPE_CHECKING:
    from memory_core.store.memory_store import MemoryStore

log = logging.getLogger(__name__)


class WriteGuard:
    """Runs one store's writes as single steps and rolls back dead writers' half-done ones."""

    def __init__(self, store: MemoryStore, lock: WriteLock) -> None:
        self._store = store
        self.lock = lock
        #: What this handle rolled back of a writer that died half way, if anything.
        self.recovered: str | None = None

    @property
    def folder(self) -> Path:
        """Where the lock, the journal and scratch folders live."""
        return self.lock.folder

    @contextmanager
    def writing(self, action: str) -> Iterator[None]:
        """Hold the lock; the outermost hold journals the table versions and puts them back
        if the write fails (see `MemoryStore.writing`)."""
        with self.lock.held(action) as outermost:
            if not outermost:
                yield
                return
            self._recover()
            before = self._store.table_versions()
            self.lock.write_journal(action, before)
            try:
                yield
            except BaseException:
                restored = self._store.bulk.restore(before)
                if restored:
                    log.warning("%s failed; tables %s put back to %s", action, restored, before)
                self.lock.clear_journal()
                raise
            self.lock.clear_journal()

    def _recover(self) -> None:
        """Put back the tables of a writer that died half way (the caller holds the lock)."""
        entry = self.lock.read_journal()
        if entry is None:
            return
        restored = self._store.bulk.restore(entry.versions)
        self.recovered = (f"an interrupted write ({entry.describe()}) was rolled back: "
                          f"{', '.join(restored) or 'no table'} restored to the versions "
                          f"before it")
        log.warning("%s", self.recovered)
        if restored:
            self._store.append_audit("recover", [], before=entry.versions,
                                     after=self._store.table_versions(),
                                     reason=self.recovered)
        self.lock.clear_journal()

    def interrupted_write(self) -> str | None:
        """See `MemoryStore.interrupted_write`."""
        if self.recovered:
            return self.recovered
        entry = self.lock.read_journal()
        if entry is None or not self.lock.is_free():
            # another process (`memlens serve` before its app) may have rolled it back: the
            # rollback stays news until the next write makes another audit row the newest
            latest = self._store.audit_entries(limit=1)
            if latest and latest[0].action == "recover":
                return f"{latest[0].reason} (at {latest[0].at:%Y-%m-%d %H:%M} UTC)"
            return None
        return (f"an interrupted write ({entry.describe()}) left the tables part-written; "
                f"the next memlens write (e.g. `memlens reembed`) rolls it back")

    def recover_if_interrupted(self) -> None:
        """Sweep dead processes' scratch folders and roll back a dead writer's journal, when
        no live process holds the lock."""
        if not self.lock.is_free():
            return
        sweep(self.lock.folder)
        if self.lock.read_journal() is None:
            return
        with self.lock.held("recovery"):
            self._recover()
