"""The append-only audit log: one row per write through memlens (DESIGN.md section 2).

Small writes keep the full records before and after (vectors left out), so a reviewer can read
what changed; bulk writes keep a summary, since LanceDB's version history (`table_version`)
holds the data for an undo.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from memory_core.codec import audit_from_row, audit_schema, audit_to_row, rows_to_table
from memory_core.filters import sql_string
from memory_core.records import AuditEntry, utcnow

#: Writes touching at most this many records keep them whole in before/after.
FULL_RECORD_LIMIT = 100


def record_snapshot(docs: Sequence[dict[str, Any]]) -> Any:
    """What the audit keeps of canonical record `docs`: all of them, or a count when many."""
    if len(docs) > FULL_RECORD_LIMIT:
        return {"count": len(docs)}
    return [{k: v for k, v in doc.items() if k != "vector"} for doc in docs]


class AuditLog:
    """Appends to and reads the `audit` table of one store."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def append(
        self,
        *,
        tenant: str,
        actor: str,
        action: str,
        target_ids: Sequence[str],
        before: Any = None,
        after: Any = None,
        reason: str | None = None,
        table_version: int | None = None,
    ) -> AuditEntry:
        """Write one audit row and return it."""
        entry = AuditEntry(
            id=str(uuid.uuid4()), at=utcnow(), tenant=tenant, actor=actor, action=action,
            target_ids=tuple(target_ids), before=before, after=after, reason=reason,
            table_version=table_version,
        )
        self._table.add(rows_to_table([audit_to_row(entry)], audit_schema()))
        return entry

    def entries(
        self, tenant: str, *, target_id: str | None = None, limit: int = 50
    ) -> list[AuditEntry]:
        """The newest `limit` entries of `tenant`, newest first; optionally for one record."""
        where = f"tenant = {sql_string(tenant)}"
        if target_id is not None:
            where += f" AND array_has(target_ids, {sql_string(target_id)})"
        table = self._table.search().where(where).limit(None).to_arrow()
        rows = sorted(table.to_pylist(), key=lambda r: r["at"], reverse=True)
        return [audit_from_row(r) for r in rows[:limit]]
