"""The write guard of a `MemoryStore` (`store.guard`): every write under the lock, with its
journal, and the rollback of a writer that died half way (the lock and journal themselves:
`store/lock.py`). It is given the lock, the tables' versions, the bulk operations that put
tables back (`BulkTables`) and the audit log that records a recovery.

A write that removes old table versions (a purge) asks for it with `remove_old_versions_at_
commit`: the versions go only once the write is committed and the journal says so (phase
`CLEANUP`), so a kill at any point leaves the store before the write or after it. A journal
whose versions cannot be read any more (gone, or of a table made again since) never blocks
recovery: those tables are kept as they are, with a logged and audited note.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from memory_core.store.audit import AuditLog
from memory_core.store.bulk import BulkTables
from memory_core.store.lock import CLEANUP, JournalEntry, WriteLock
from memory_core.store.scratch import scratch_folder, sweep

log = logging.getLogger(__name__)


class WriteGuard:
    """Runs one store's writes as single steps and rolls back dead writers' half-done ones."""

    def __init__(self, lock: WriteLock, *, versions: Callable[[], dict[str, int]],
                 bulk: BulkTables, audit: AuditLog, read_only: Callable[[], bool],
                 scratch_home: Callable[[], Path]) -> None:
        self.lock = lock
        self._versions = versions
        self._bulk = bulk
        self._audit = audit
        self._read_only = read_only
        self._scratch_home = scratch_home
        #: What this handle rolled back of a writer that died half way, if anything.
        self.recovered: str | None = None
        self._cleanup_at_commit = False

    @property
    def folder(self) -> Path:
        """Where the lock, the journal and scratch folders live."""
        return self.lock.folder

    def scratch(self, purpose: str) -> AbstractContextManager[Path]:
        """A private folder kept with the store for `purpose`'s temporary files (import
        staging), removed afterwards; those of dead processes are swept first. A read-only
        handle keeps it under the model cache: its store may be on a read-only mount."""
        return scratch_folder(self._scratch_home(), purpose)

    @contextmanager
    def writing(self, action: str) -> Iterator[None]:
        """Hold the lock; the outermost hold journals the table versions and puts them back
        if the write fails (see `MemoryStore.writing`)."""
        with self.lock.held(action) as outermost:
            if not outermost:
                yield
                return
            self._recover()
            before = self._versions()
            started = self.lock.write_journal(action, before)
            self._cleanup_at_commit = False
            try:
                yield
            except BaseException:
                self._cleanup_at_commit = False
                outcome = self._bulk.restore(before, written_before=started)
                # a clean rollback is what the caller's own error implies ("nothing was
                # written"), so only a table that could not be put back is a warning
                if outcome.kept:
                    log.warning("%s failed; %s", action, outcome.describe())
                elif outcome.restored:
                    log.info("%s failed; %s", action, outcome.describe())
                self.lock.clear_journal()
                raise
            if self._cleanup_at_commit:
                self._cleanup_at_commit = False
                # committed: from here a kill rolls forward (finishes the removal), since
                # the versions before this write are about to go
                self.lock.write_journal(action, self._versions(), phase=CLEANUP)
                self._bulk.remove_old_versions()  # a failure leaves the journal: retried
            self.lock.clear_journal()

    def remove_old_versions_at_commit(self) -> None:
        """Inside `store.writing`: once this write is committed, remove every older version
        of the tables from disk (a purge). The removal runs after the commit, under a journal
        that finishes it if the process dies, so a kill never leaves a journal pointing at
        removed versions (a nested write defers it to the outermost one's commit)."""
        if not self.lock.held_here():
            raise RuntimeError("remove_old_versions_at_commit outside store.writing")
        self._cleanup_at_commit = True

    def _recover(self) -> None:
        """Finish or put back the write of a writer that died half way (the caller holds the
        lock)."""
        entry = self.lock.read_journal()
        if entry is None:
            return
        if entry.phase == CLEANUP:
            done = self._bulk.remove_old_versions(entry.versions,
                                                        written_before=entry.started_at)
            kept = "".join(f"; {name} left as it is: {why}" for name, why in done.kept.items())
            self.recovered = (f"an interrupted write ({entry.describe()}) had been "
                              f"committed; its removal of older table versions was finished "
                              f"({', '.join(done.restored) or 'no table'}){kept}")
            changed = True
        else:
            changed = self._roll_back(entry)
        log.warning("%s", self.recovered)
        if changed:
            self._audit.append("recover", [], before=entry.versions, after=self._versions(),
                               reason=self.recovered)
        self.lock.clear_journal()

    def _roll_back(self, entry: JournalEntry) -> bool:
        """Put back the tables of a dead writer's journal; whether any table changed or was
        kept against the journal (both are audited)."""
        outcome = self._bulk.restore(entry.versions, written_before=entry.started_at)
        done = "was not rolled back" if outcome.kept and not outcome.restored else \
            "was rolled back"
        self.recovered = f"an interrupted write ({entry.describe()}) {done}: {outcome.describe()}"
        return bool(outcome.restored or outcome.kept)

    def interrupted_write(self) -> str | None:
        """A write that died half way and is not rolled back yet (a read-only handle cannot
        roll it back), or the rollback of one when nothing was written since; else None."""
        if self.recovered:
            return self.recovered
        entry = self.lock.read_journal()
        if entry is None or not self.lock.is_free():
            # another process (`memlens serve` before its app) may have rolled it back: the
            # rollback stays news until the next write makes another audit row the newest
            latest = self._audit.entries(limit=1)
            if latest and latest[0].action == "recover":
                return f"{latest[0].reason} (at {latest[0].at:%Y-%m-%d %H:%M} UTC)"
            return None
        if entry.phase == CLEANUP:
            return (f"an interrupted write ({entry.describe()}) was committed, but older table "
                    f"versions are still on disk; the next memlens write (e.g. `memlens "
                    f"reembed`) removes them")
        return (f"an interrupted write ({entry.describe()}) left the tables part-written; "
                f"the next memlens write (e.g. `memlens reembed`) rolls it back")

    def recover_if_interrupted(self) -> None:
        """Sweep dead processes' scratch folders and roll back a dead writer's half-done
        write now, when the handle is writable and no live process holds the lock (a live
        writer's journal is left alone)."""
        if self._read_only() or not self.lock.is_free():
            return
        sweep(self.lock.folder)
        if self.lock.read_journal() is None:
            return
        with self.lock.held("recovery"):
            try:
                self._recover()
            except (OSError, RuntimeError) as exc:
                entry = self.lock.read_journal()
                if entry is None or entry.phase != CLEANUP:
                    raise
                # the store is whole at its latest version: reads go on, the next write
                # retries the removal (and fails with this error until it can finish)
                log.warning("could not finish removing older table versions after %s: %s",
                            entry.describe(), exc)
