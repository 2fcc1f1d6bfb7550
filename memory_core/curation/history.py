"""The audit log read as batches: what `memlens audit` and the Curate page list.

Rows written by one curation action (or undo) share a `batch_id` and are one batch; every
other audit row (add, import, recall, re-embed, ...) is a batch of its own, not undoable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory_core.model.records import AuditEntry
from memory_core.store import MemoryStore
from memory_core.store.audit import undone_by

#: Actions `undo` can reverse.
UNDOABLE = frozenset({"edit", "archive", "restore", "supersede", "merge", "delete", "correct",
                      "link", "unlink", "undo", "consolidate"})


@dataclass(frozen=True)
class AuditBatch:
    """The audit rows of one batch, newest batch first in listings."""

    batch_id: str | None
    action: str
    actor: str
    at: datetime
    reason: str | None
    rows: tuple[AuditEntry, ...]

    @property
    def memory_ids(self) -> list[str]:
        """The memories the batch touched (edge rows left out)."""
        out: list[str] = []
        for row in self.rows:
            kind = row.before.get("kind") if isinstance(row.before, dict) else None
            if kind != "edge" and not (isinstance(row.after, dict) and "undone" in row.after):
                out.extend(row.target_ids)
        return list(dict.fromkeys(out))

    @property
    def undoable(self) -> bool:
        """Whether `undo` may be tried (it still refuses after a conflicting change)."""
        return self.batch_id is not None and self.action in UNDOABLE

    def to_dict(self) -> dict[str, Any]:
        return {"batch_id": self.batch_id, "action": self.action, "actor": self.actor,
                "at": self.at.isoformat(), "reason": self.reason,
                "memory_ids": self.memory_ids, "undoable": self.undoable,
                "rows": [{"id": r.id, "action": r.action, "target_ids": list(r.target_ids),
                          "before": r.before, "after": r.after,
                          "table_version": r.table_version} for r in self.rows]}


def audit_batches(store: MemoryStore, *, since: datetime | None = None,
                  until: datetime | None = None, actor: str | None = None,
                  action: str | None = None, memory_id: str | None = None,
                  limit: int = 50) -> list[AuditBatch]:
    """The newest `limit` batches of the tenant matching every criterion given."""
    rows = store.audit.query(since=since, until=until, actor=actor,
                             target_ids=(memory_id,) if memory_id else (), limit=None)
    groups: dict[str, list[AuditEntry]] = {}
    for row in rows:
        groups.setdefault(row.batch_id or f"row:{row.id}", []).append(row)
    batches = []
    for key, members in groups.items():
        members.sort(key=lambda r: (r.at, r.id))
        head = members[0]
        batch_id = None if key.startswith("row:") else key
        if action is not None and head.action != action:
            continue
        batches.append(AuditBatch(batch_id, head.action, head.actor, head.at, head.reason,
                                  tuple(members)))
    batches.sort(key=lambda b: b.at, reverse=True)
    return batches[:limit]


def undone_batches(store: MemoryStore) -> dict[str, str]:
    """batch id -> the undo batch that reverses it now, for every batch of the tenant whose
    undo is in effect (an undo that was itself undone does not count: that batch is back).

    The events table is append-only: a `correct` event stays when its batch is undone, and
    its metadata's `batch_id` looked up here says so (`memlens events` prints it).
    """
    return undone_by(store.audit.query(action="undo", limit=None))
