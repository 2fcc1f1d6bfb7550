"""The append-only `events` table (`store.events`): recall, cite and correct events
(docs/design/events.md).

Events are never changed once written; a purge deletes the events of the memories it purges
(with the rest of their traces). A schema v1 store opened read-only has no events table: it
reads as having no events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import pyarrow as pa

from memory_core.model.codec import event_from_row, event_to_row, events_schema, rows_to_table
from memory_core.model.filters import in_chunks, sql_in, sql_string, sql_time
from memory_core.model.records import Event, validate_event
from memory_core.store.accel.arrow_query import collect, query
from memory_core.store.accel.count_cache import VersionCounts
from memory_core.store.accel.current_dataset import LatestDataset
from memory_core.store.write_step import WriteStep

_LATEST = pa.schema([pa.field("memory_id", pa.string()),
                     pa.field("at", pa.timestamp("us", tz="UTC")),
                     pa.field("count", pa.int64())])


class EventLog:
    """Appends to and reads the `events` table of one store, scoped to a tenant; each append
    or deletion a write step of the store's (`WriteStep`). With `accel=False` (the store's
    speed-up switch) nothing is kept between two calls: no counts, no dataset shortcut."""

    def __init__(self, table: Any | None, tenant: str, *, step: WriteStep,
                 accel: bool = True) -> None:
        self._handle = table
        self.tenant = tenant
        self._step = step
        self._counts = VersionCounts(enabled=accel)
        self._latest = LatestDataset(lambda: self._handle, enabled=accel)
        self._keep_seen = accel
        self._seen: set[str] = set()  # kinds a count found (thread-safe: only ever added to)

    def has_kind(self, kind: str) -> bool:
        """Whether the tenant may have an event of `kind`: False only when a count at the
        table's latest version found none (counted once per version); once one is found it
        stays True (events are only appended; a purge's deletions leave a query to say so).

        A search with decay asks for the latest `cite` of its candidates; LanceDB takes time
        to plan and run that query even on an empty table, so a store without citations
        answers from the count instead, and a store with them never counts again."""
        if self._handle is None:
            return False
        if kind in self._seen:
            return True
        where = " AND ".join(self._where(kinds=(kind,), session_id=None, since=None,
                                         until=None))
        if self._counts.count(self._handle, where, self._latest.version()) > 0:
            if self._keep_seen:
                self._seen.add(kind)
            return True
        return False

    @property
    def present(self) -> bool:
        """False for a schema v1 store opened read-only (no events table yet)."""
        return self._handle is not None

    def record(self, events: Iterable[Event]) -> int:
        """Append `events` (validated, put in this tenant) in one commit, as a write step;
        returns how many. A schema v1 store without an events table writes none."""
        batch = [validate_event(replace(e, tenant=self.tenant)) for e in events]
        if not batch:
            return 0
        with self._step.writing("record events"):
            if self._handle is not None:
                self._handle.add(rows_to_table([event_to_row(e) for e in batch],
                                               events_schema()))
        return len(batch)

    def _where(self, *, kinds: Sequence[str], session_id: str | None,
               since: datetime | None, until: datetime | None) -> list[str]:
        where = [f"tenant = {sql_string(self.tenant)}"]
        if kinds:
            where.append(f"event_kind IN ({', '.join(sql_string(k) for k in kinds)})")
        if session_id is not None:
            where.append(f"session_id = {sql_string(session_id)}")
        if since is not None:
            where.append(f"at >= {sql_time(since)}")
        if until is not None:
            where.append(f"at < {sql_time(until)}")
        return where

    def scan(self, *, memory_ids: Sequence[str] | None = None, kinds: Sequence[str] = (),
             session_id: str | None = None, since: datetime | None = None,
             until: datetime | None = None, columns: Sequence[str] | None = None) -> pa.Table:
        """The matching events as an Arrow table (every column unless `columns`), unsorted.

        `memory_ids=None` means every memory; an empty sequence means none.
        """
        names = list(columns) if columns is not None else list(events_schema().names)
        empty = events_schema().empty_table().select(names)
        if self._handle is None or (memory_ids is not None and not memory_ids):
            return empty
        where = self._where(kinds=kinds, session_id=session_id,
                            since=since, until=until)
        parts = []
        for chunk in ([None] if memory_ids is None else in_chunks(list(memory_ids))):
            clauses = where if chunk is None else [*where, sql_in("memory_id", chunk)]
            parts.append(collect(query(self._handle).where(" AND ".join(clauses))
                                 .select(names)))
        return pa.concat_tables(parts).cast(empty.schema) if parts else empty

    def query(self, *, memory_ids: Sequence[str] | None = None, kinds: Sequence[str] = (),
              session_id: str | None = None, since: datetime | None = None,
              until: datetime | None = None, limit: int | None = None) -> list[Event]:
        """The matching events, newest first (ties by id)."""
        table = self.scan(memory_ids=memory_ids, kinds=kinds, session_id=session_id,
                          since=since, until=until)
        rows = sorted(table.to_pylist(), key=lambda r: (r["at"], r["id"]), reverse=True)
        return [event_from_row(r) for r in rows[:limit]]

    def latest(self, kind: str, *, memory_ids: Sequence[str] | None = None,
               since: datetime | None = None, until: datetime | None = None) -> pa.Table:
        """Per memory with an event of `kind` (in `[since, until)`): its latest event's time
        and how many it has. Columns `memory_id`, `at`, `count`; one row per memory."""
        if not self.has_kind(kind):
            return _LATEST.empty_table()
        table = self.scan(memory_ids=memory_ids, kinds=(kind,), since=since, until=until,
                          columns=("memory_id", "at"))
        if table.num_rows == 0:
            return _LATEST.empty_table()
        grouped = table.group_by("memory_id").aggregate([("at", "max"), ("at", "count")])
        return pa.table({"memory_id": grouped["memory_id"], "at": grouped["at_max"],
                         "count": grouped["at_count"]}, schema=_LATEST)

    def count(self) -> int:
        """How many events the tenant has."""
        if self._handle is None:
            return 0
        return int(self._handle.count_rows(f"tenant = {sql_string(self.tenant)}"))

    def delete_for(self, memory_ids: Sequence[str]) -> int:
        """Delete every event of `memory_ids` (a purge: events name the memory), as a write
        step; returns the table's version."""
        with self._step.writing("delete events"):
            if self._handle is None:
                return 0
            for chunk in in_chunks(list(memory_ids)):
                self._handle.delete(f"tenant = {sql_string(self.tenant)} AND "
                                    f"{sql_in('memory_id', chunk)}")
            return int(self._handle.version)
