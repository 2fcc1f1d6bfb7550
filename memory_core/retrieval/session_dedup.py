"""Per-session de-duplication of recalled memories (seed 003 ADR-003).

A session that already received a memory (by id or by content hash) does not receive it
again. Sessions expire after 30 minutes without activity and keep at most 100 entries (the
oldest are dropped). State is written to SQLite on every send, so a crash loses nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

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
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits on success and is always closed."""
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                yield db
        finally:
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
