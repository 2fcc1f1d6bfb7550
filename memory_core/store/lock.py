"""One writer at a time, all or nothing: the store's write lock and its write journal.

Every write through memlens runs inside `store.writing(action)`:

* **The lock** (`fcntl.flock` on a file beside the tables) makes the checks a write depends
  on (ids unique across tenants, content not held yet) and the write itself one step, so two
  processes adding the same ids or contents at once cannot both succeed: the second waits,
  then sees the first one's rows. The operating system drops the lock when its holder dies,
  even by `kill -9`.
* **The journal** records every table's version before the write. A write that touches
  several tables (memories, edges, audit, events) removes its journal only once all of them
  are written; a journal found by the next holder of the lock therefore belongs to a writer that
  died half way, and its tables are put back to the recorded versions (LanceDB keeps them).
  A write that also removes old versions (a purge) removes them only after it is committed:
  its journal then says `cleanup`, and the next holder finishes the removal (rolls forward)
  instead of putting back versions that may be gone already.

A local store keeps both files in its folder; a store on object storage keeps them under the
model cache folder, keyed by its URI, which serialises the writers of one machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.model.config import store_key
from memory_core.model.errors import StoreBusyError
from memory_core.store.object_storage import is_remote

try:
    import fcntl
except ImportError:  # not POSIX: writers are not serialised (documented)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

LOCK_FILE = ".memlens-write.lock"
JOURNAL_FILE = ".memlens-journal.json"
#: How long a writer waits for another one to finish before giving up.
DEFAULT_TIMEOUT_S = 300.0
#: The journal's phases: a write in progress (roll back), or a committed write whose removal
#: of older versions is in progress (roll forward: finish the removal).
WRITE, CLEANUP = "write", "cleanup"


def control_folder(uri: str, cache: Path) -> Path:
    """Where the lock and journal of the store at `uri` live."""
    if is_remote(uri):
        # keyed by the spelling two URIs of one store share (`s3://b/p/` is `s3://b/p`)
        digest = hashlib.sha256(store_key(uri).encode()).hexdigest()[:16]
        return cache / "locks" / digest
    return Path(uri.removeprefix("file://")).expanduser()


@dataclass(frozen=True)
class JournalEntry:
    """A write in progress: what it was, who ran it, when, and the table versions before it
    (phase `WRITE`), or after it (phase `CLEANUP`: committed at `started_at`, its removal of
    old versions under way)."""

    action: str
    pid: int
    started_at: float
    versions: dict[str, int]
    phase: str = WRITE

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.started_at))
        verb = "started" if self.phase == WRITE else "committed"
        return f"{self.action} {verb} {when} by process {self.pid}"


class WriteLock:
    """The write lock and journal of one store, reentrant within a process.

    Get it with `WriteLock.of(folder)`: every handle of one store in a process shares one
    lock, so two handles (the app's and a page's, the drill's) never wait for each other.
    """

    _shared: dict[Path, WriteLock] = {}
    _shared_guard = threading.Lock()

    @classmethod
    def of(cls, folder: Path) -> WriteLock:
        """The process's lock for the store whose control folder is `folder`."""
        key = folder.resolve() if not folder.is_absolute() else folder
        with cls._shared_guard:
            if key not in cls._shared:
                cls._shared[key] = cls(key)
            return cls._shared[key]

    def __init__(self, folder: Path, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self._folder = folder
        self._timeout = timeout
        self._guard = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @property
    def folder(self) -> Path:
        """Where the lock, the journal and scratch folders live."""
        return self._folder

    @property
    def journal_path(self) -> Path:
        return self._folder / JOURNAL_FILE

    def _acquire(self, what: str) -> None:
        if fcntl is None:
            return
        self._folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise StoreBusyError(
                        f"another memlens process has been writing to this store for over "
                        f"{self._timeout:.0f} s, so {what} did not start; try again when it "
                        f"has finished"
                    ) from None
                time.sleep(0.02)
        self._fd = fd

    def _release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    @contextmanager
    def held(self, what: str) -> Iterator[bool]:
        """Hold the lock; yields whether this is the outermost hold (reentrant)."""
        with self._guard:
            if self._depth == 0:
                self._acquire(what)
            self._depth += 1
            try:
                yield self._depth == 1
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def held_here(self) -> bool:
        """Whether this process holds the lock now (inside a `held` block)."""
        return self._depth > 0

    def is_free(self) -> bool:
        """Whether no process holds the lock now (a journal then is a dead writer's)."""
        if fcntl is None or self._depth:
            return self._depth == 0
        path = self._folder / LOCK_FILE
        if not path.exists():
            return True
        fd = os.open(path, os.O_RDONLY)  # a shared lock needs no write access (read-only mounts)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return True
        finally:
            os.close(fd)

    # ------------------------------------------------------------------ journal
    def read_journal(self) -> JournalEntry | None:
        """The journal of a write in progress or interrupted, if there is one."""
        try:
            data: dict[str, Any] = json.loads(self.journal_path.read_text(encoding="utf-8"))
            phase = str(data.get("phase", WRITE))
            if phase not in (WRITE, CLEANUP):
                raise ValueError(f"unknown phase {phase!r}")
            return JournalEntry(str(data["action"]), int(data["pid"]),
                                float(data["started_at"]),
                                {str(k): int(v) for k, v in data["versions"].items()}, phase)
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring an unreadable write journal %s: %s", self.journal_path, exc)
            return None

    def write_journal(self, action: str, versions: dict[str, int], *, phase: str = WRITE
                      ) -> float:
        """Record a write about to start, or (`phase=CLEANUP`) committed with its removal of
        old versions to come; atomically: a reader sees the old journal or the new one.
        Returns the recorded start time."""
        self._folder.mkdir(parents=True, exist_ok=True)
        started = time.time()
        tmp = self.journal_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"action": action, "pid": os.getpid(), "phase": phase,
                                   "started_at": started, "versions": versions}),
                       encoding="utf-8")
        os.replace(tmp, self.journal_path)
        return started

    def clear_journal(self) -> None:
        """The write finished (or was put back): forget it."""
        self.journal_path.unlink(missing_ok=True)
