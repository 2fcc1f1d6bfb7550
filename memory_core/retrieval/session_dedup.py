"""Per-session de-duplication of recalled memories (ADR-003 in docs/design/seeds.md).

A session that already received a memory (by id or by content hash) does not receive it
again. Sessions expire after 30 minutes without activity and keep at most 100 entries (the
oldest are dropped). State is written to SQLite on every send, so a crash loses nothing.

A recall on a read-only store writes nothing, this file included: it reads what the session
was already sent, if the file exists (`SessionDedup.reader`), and records none of its own
sends, so a later recall may send them again.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

log = logging.getLogger(__name__)

TTL = timedelta(minutes=30)
CAP = 100

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sent (
    session_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    sent_at REAL NOT NULL,
    PRIMARY KEY (session_id, memory_id)
);
CREATE INDEX IF NOT EXISTS sent_session ON sent (session_id, sent_at);
"""


class SessionDedup:
    """What each recall session has been sent, persisted in one SQLite file."""

    def __init__(self, path: Path, *, ttl: timedelta = TTL, cap: int = CAP) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.ttl = ttl
        self.cap = cap
        self._shared: sqlite3.Connection | None = None
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @staticmethod
    def reader(path: Path, *, ttl: timedelta = TTL) -> SessionReader:
        """What sessions were sent, read from `path` without writing or creating anything."""
        return SessionReader(path, ttl=ttl)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.execute("PRAGMA journal_mode=WAL")
        # WAL with NORMAL: a commit survives the process being killed (what a crash is
        # here); only a power cut can lose the last sends, which then are sent again
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection whose transaction commits on success: the one `together` holds,
        else a new one that is closed after it."""
        if self._shared is not None:
            with self._shared:
                yield self._shared
            return
        db = self._open()
        try:
            with db:
                yield db
        finally:
            db.close()

    @contextmanager
    def together(self) -> Iterator[SessionDedup]:
        """Run the calls made inside on one connection (a recall's read of what was sent
        and its record of what it sends), each still its own transaction. Closing it at
        the end folds the WAL back into the file, which `SessionReader` needs."""
        if self._shared is not None:
            yield self
            return
        self._shared = self._open()
        try:
            yield self
        finally:
            db, self._shared = self._shared, None
            db.close()

    def _expire(self, db: sqlite3.Connection, session_id: str, now: datetime) -> None:
        last = db.execute("SELECT MAX(sent_at) FROM sent WHERE session_id = ?",
                          (session_id,)).fetchone()[0]
        if last is not None and now.timestamp() - last > self.ttl.total_seconds():
            db.execute("DELETE FROM sent WHERE session_id = ?", (session_id,))

    def already_sent(self, session_id: str, now: datetime) -> tuple[set[str], set[str]]:
        """(memory ids, content hashes) this live session was sent."""
        with self._connect() as db:
            self._expire(db, session_id, now)
            rows = db.execute("SELECT memory_id, content_hash FROM sent WHERE session_id = ?",
                              (session_id,)).fetchall()
        return {r[0] for r in rows}, {r[1] for r in rows}

    def mark_sent(self, session_id: str, items: Sequence[tuple[str, str]], now: datetime
                  ) -> None:
        """Record (memory id, content hash) pairs as sent now; keep the newest `cap`."""
        with self._connect() as db:
            self._expire(db, session_id, now)
            db.executemany(
                "INSERT OR REPLACE INTO sent VALUES (?, ?, ?, ?)",
                [(session_id, mid, digest, now.timestamp()) for mid, digest in items],
            )
            db.execute(
                "DELETE FROM sent WHERE session_id = ? AND memory_id NOT IN (SELECT memory_id "
                "FROM sent WHERE session_id = ? ORDER BY sent_at DESC, memory_id LIMIT ?)",
                (session_id, session_id, self.cap),
            )

    def count(self, session_id: str) -> int:
        """Entries held for a session."""
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM sent WHERE session_id = ?",
                                  (session_id,)).fetchone()[0])

    def forget(self, memory_ids: Sequence[str], content_hashes: Sequence[str]) -> int:
        """Drop every session's entries for these memories (by id or content hash), as a
        purge must; returns how many were dropped."""
        dropped = 0
        with self._connect() as db:
            for column, values in (("memory_id", memory_ids), ("content_hash", content_hashes)):
                for start in range(0, len(values), 500):
                    chunk = list(values[start : start + 500])
                    marks = ", ".join("?" * len(chunk))
                    dropped += db.execute(f"DELETE FROM sent WHERE {column} IN ({marks})",
                                          chunk).rowcount
        return dropped

    def holding(self, memory_ids: Sequence[str], content_hashes: Sequence[str]) -> int:
        """How many entries (any session) name these memories by id or content hash."""
        ids, hashes = set(memory_ids), set(content_hashes)
        with self._connect() as db:
            rows = db.execute("SELECT memory_id, content_hash FROM sent").fetchall()
        return sum(1 for mid, digest in rows if mid in ids or digest in hashes)


class SessionReader:
    """The read side of `SessionDedup` for a read-only store: opens the file read-only (a
    missing file is a session sent nothing), never expires or records anything."""

    def __init__(self, path: Path, *, ttl: timedelta = TTL) -> None:
        self.path = path
        self.ttl = ttl

    def already_sent(self, session_id: str, now: datetime) -> tuple[set[str], set[str]]:
        """(memory ids, content hashes) this live session was sent (expired: none)."""
        if not self.path.is_file():
            return set(), set()
        # immutable: even a read-only open of a WAL file would create its -wal and -shm
        # files; the writer's handles close after each send, which folds the WAL back in
        db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            rows = db.execute("SELECT memory_id, content_hash, sent_at FROM sent "
                              "WHERE session_id = ?", (session_id,)).fetchall()
        except sqlite3.DatabaseError as exc:  # caught mid-write by a writer of this file
            log.warning("cannot read the recall session file %s (%s); sending as if the "
                        "session had been sent nothing", self.path, exc)
            return set(), set()
        finally:
            db.close()
        if not rows or now.timestamp() - max(r[2] for r in rows) > self.ttl.total_seconds():
            return set(), set()
        return {r[0] for r in rows}, {r[1] for r in rows}
