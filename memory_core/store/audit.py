"""The append-only audit log (`store.audit`): one row per write through memlens
(docs/design/records.md).

Small writes keep the full records before and after (vectors left out), so a reviewer can read
what changed; bulk writes keep a summary, since LanceDB's version history (`table_version`)
holds the data for an undo.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from memory_core.model.codec import audit_from_row, audit_schema, audit_to_row, rows_to_table
from memory_core.model.filters import sql_string, sql_time
from memory_core.model.records import AuditEntry
from memory_core.model.schema import ROW_KEY
from memory_core.model.values import utcnow
from memory_core.store.write_step import WriteStep

#: Writes touching at most this many records keep them whole in before/after.
FULL_RECORD_LIMIT = 100


def record_snapshot(docs: Sequence[dict[str, Any]]) -> Any:
    """What the audit keeps of canonical record `docs`: all of them, or a count when many."""
    if len(docs) > FULL_RECORD_LIMIT:
        return {"count": len(docs)}
    return [{k: v for k, v in doc.items() if k != "vector"} for doc in docs]


def undone_by(undo_rows: Sequence[AuditEntry]) -> dict[str, str]:
    """batch id -> the undo batch that reverses it now, from the audit rows of `undo`
    batches (those whose `after` names the batch they undid: `{"undone": id}`). An undo that
    was itself undone does not count: that batch is back. `curation.undone_batches` reads
    the rows; this is the rule, kept here so that any engine can apply it."""
    undid: dict[str, list[tuple[datetime, str]]] = {}
    for row in undo_rows:
        if row.batch_id and isinstance(row.after, dict) and "undone" in row.after:
            undid.setdefault(str(row.after["undone"]), []).append((row.at, row.batch_id))
    memo: dict[str, str | None] = {}

    def undone(batch_id: str, seen: frozenset[str]) -> str | None:
        if batch_id not in memo:
            live = [u for _, u in sorted(undid.get(batch_id, ()), reverse=True)
                    if u not in seen and undone(u, seen | {u}) is None]
            memo[batch_id] = live[0] if live else None
        return memo[batch_id]

    found = {b: undone(b, frozenset({b})) for b in undid}
    return {b: u for b, u in found.items() if u is not None}


class AuditLog:
    """The audit rows of one tenant in a store's `audit` table (`store.audit`): each append a
    write step of the store's (`WriteStep`), each read scoped to the tenant."""

    def __init__(self, table: Any, *, tenant: str, actor: Callable[[], str], step: WriteStep
                 ) -> None:
        self._handle = table
        self._tenant = tenant
        self._actor = actor  # read at each write: an agent's session sets the store's
        self._step = step

    def append(self, action: str, target_ids: Sequence[str], *, before: Any = None,
               after: Any = None, reason: str | None = None, table_version: int | None = None,
               tenant: str | None = None, batch_id: str | None = None) -> AuditEntry:
        """Append one audit row for a write made through memlens (this tenant by default,
        by the store's actor), as a write step; returns it."""
        with self._step.writing(action):  # stamped under the lock: rows in write order
            entry = AuditEntry(
                id=str(uuid.uuid4()), at=utcnow(), tenant=tenant or self._tenant,
                actor=self._actor(), action=action, target_ids=tuple(target_ids), before=before,
                after=after, reason=reason, table_version=table_version, batch_id=batch_id,
            )
            self._handle.add(rows_to_table([audit_to_row(entry)], audit_schema()))
        return entry

    def append_many(self, entries: Sequence[AuditEntry]) -> int:
        """Append audit rows built by the caller (put in this tenant, by the store's actor) in
        one commit; returns the audit table's version."""
        rows = [audit_to_row(replace(e, tenant=self._tenant, actor=self._actor()))
                for e in entries]
        with self._step.writing("audit"):
            self._handle.add(rows_to_table(rows, audit_schema()))
            return int(self._handle.version)

    def query(self, *, target_ids: Sequence[str] = (), batch_id: str | None = None,
              actor: str | None = None, action: str | None = None,
              since: datetime | None = None, until: datetime | None = None,
              limit: int | None = 50) -> list[AuditEntry]:
        """This tenant's entries matching every criterion given, newest first: touching any
        of `target_ids`, of one batch, actor or action, at or after `since`, before `until`."""
        where = [f"tenant = {sql_string(self._tenant)}"]
        if target_ids:
            wanted = ", ".join(sql_string(i) for i in target_ids)
            where.append(f"array_has_any(target_ids, [{wanted}])")
        if batch_id is not None:
            where.append(f"batch_id = {sql_string(batch_id)}")
        if actor is not None:
            where.append(f"actor = {sql_string(actor)}")
        if action is not None:
            where.append(f"action = {sql_string(action)}")
        if since is not None:
            where.append(f"at >= {sql_time(since)}")
        if until is not None:
            where.append(f"at < {sql_time(until)}")
        if batch_id is not None and "batch_id" not in self._handle.schema.names:
            return []  # a store opened read-only before it gained the column has no batches
        table = self._handle.search().where(" AND ".join(where)).limit(None).to_arrow()
        rows = sorted(table.to_pylist(), key=lambda r: (r["at"], r["id"]), reverse=True)
        return [audit_from_row(r) for r in rows[:limit]]

    def entries(self, *, memory_id: str | None = None, limit: int = 50) -> list[AuditEntry]:
        """The newest `limit` entries of this tenant, newest first; optionally for one record."""
        return self.query(target_ids=() if memory_id is None else (memory_id,), limit=limit)

    def rewrite(self, entries: Sequence[AuditEntry]) -> int:
        """Overwrite existing rows by (tenant, id), as a write step (a purge scrubbing record
        copies to tombstones: the only change ever made to a written audit row); returns the
        table's version."""
        with self._step.writing("scrub audit"):
            if entries:
                data = rows_to_table([audit_to_row(e) for e in entries], audit_schema())
                self._handle.merge_insert(ROW_KEY).when_matched_update_all().execute(data)
            return int(self._handle.version)
