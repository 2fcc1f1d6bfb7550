"""The audit against the tables' versions: every write the audit records must still be in
its table.

Table versions only grow (a restore, an undo or a rollback commits a new version), so an
audit row saying a write left `memories` at version 6 while the table's newest version is 5
means version 6 is gone: a deleted manifest brought back the table as it was before that
write (archived memories active again) and nothing else would notice. Each row says which
versions it saw: `table_version` (the memories table's, or the edges table's for an edge
write), a curation batch's `before.versions` (every table before it), a recovery's or a
repair's versions after it. Only the newest rows are held against a table, back to the
newest one it still holds (rows imported from another store carry its versions). A `repair`
row acknowledges the loss it found: rows before the newest repair are not held again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_core.model.codec import audit_from_row
from memory_core.model.records import AuditEntry
from memory_core.model.schema import AUDIT, EDGES, MEMORIES
from memory_core.store.files.findings import Problem

#: The audit action of `memlens check --repair`.
REPAIR = "repair"
EDGE_ACTIONS = frozenset({"add_edges"})


@dataclass(frozen=True)
class LostWrite:
    """An audit row whose write is no longer in `table` (it saw `version`, above `newest`)."""

    entry: AuditEntry
    table: str
    version: int
    newest: int


def audit_entries(audit_ds: Any) -> list[AuditEntry]:
    """Every row of the audit dataset (one version), oldest first."""
    rows = audit_ds.to_table().to_pylist()
    return sorted((audit_from_row(r) for r in rows), key=lambda e: (e.at, e.id))


def _versions(value: Any) -> dict[str, int]:
    if isinstance(value, dict) and isinstance(value.get("versions"), dict):
        value = value["versions"]
    if not isinstance(value, dict):
        return {}
    return {str(k): int(v) for k, v in value.items()
            if isinstance(v, int) and not isinstance(v, bool)}


def claims(entry: AuditEntry) -> dict[str, int]:
    """table -> the version the row says the table had reached (at least)."""
    out = dict(_versions(entry.before))
    if entry.action in ("recover", REPAIR):
        for name, version in _versions(entry.after).items():
            out[name] = max(out.get(name, 0), version)
    if entry.table_version is not None:
        kind = entry.before.get("kind") if isinstance(entry.before, dict) else None
        name = EDGES if entry.action in EDGE_ACTIONS or kind == "edge" else MEMORIES
        out[name] = max(out.get(name, 0), int(entry.table_version))
    out.pop(AUDIT, None)  # the row itself is a later audit version: nothing to compare
    return out


def lost_writes(entries: list[AuditEntry], newest: dict[str, int]) -> list[LostWrite]:
    """The newest rows (after the newest repair) whose table no longer has the version they
    saw, back to the newest row whose version the table still has: rows older than that one
    (audit rows imported from another store carry that store's versions) are not held
    against this store's tables."""
    repairs = [i for i, e in enumerate(entries) if e.action == REPAIR]
    start = repairs[-1] if repairs else 0
    out = []
    for table, version_now in newest.items():
        for entry in reversed(entries[start:]):
            seen = claims(entry).get(table)
            if seen is None:
                continue
            if seen <= version_now:
                break
            out.append(LostWrite(entry, table, seen, version_now))
    return sorted(out, key=lambda w: (w.entry.at, w.entry.id, w.table))


def lost_problems(lost: list[LostWrite]) -> list[Problem]:
    """One line per table whose audited writes are gone, naming the newest of them."""
    by_table: dict[str, list[LostWrite]] = {}
    for item in lost:
        by_table.setdefault(item.table, []).append(item)
    out = []
    for table, items in sorted(by_table.items()):
        last = max(items, key=lambda i: (i.version, i.entry.at))
        batch = f", batch {last.entry.batch_id}" if last.entry.batch_id else ""
        touched = len({t for i in items for t in i.entry.target_ids})
        out.append(Problem(
            table, "_versions",
            f"the audit records {len(items)} write(s) the table no longer holds: the last, "
            f"{last.entry.action} at {last.entry.at:%Y-%m-%d %H:%M:%S} UTC{batch} "
            f"({len(last.entry.target_ids):,} records), left it at version {last.version}, "
            f"but its newest version is {last.newest} (a deleted manifest?); {touched:,} "
            f"records touched", kind="lost"))
    return out
