"""Undo a curation batch: put the memories and edges it touched back as they were before it,
read from LanceDB's version history (docs/design/records.md), as a new batch of its own.

Refused for a purge (its rows are gone from every version), when a later change touched the
same memories or edges (the message names it: undo that first), and when the versions it
needs were removed from disk by a later purge.
"""

from __future__ import annotations

from typing import Any

from memory_core.curation.batch import EDGE_ROWS, MEMORY_ROWS, run
from memory_core.curation.plan import Plan
from memory_core.curation.report import CurationReport
from memory_core.model.errors import CurationConflictError, CurationError
from memory_core.model.records import AuditEntry
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore


def _rows_of(store: MemoryStore, batch_id: str) -> dict[str, AuditEntry]:
    rows = store.audit.query(batch_id=batch_id, limit=None)
    if not rows:
        raise CurationError(f"no batch {shown(batch_id)} in tenant {shown(store.tenant)}; "
                            f"list batches with `memlens audit`")
    out: dict[str, AuditEntry] = {}
    for row in rows:
        kind = row.before.get("kind") if isinstance(row.before, dict) else None
        if kind in (MEMORY_ROWS, EDGE_ROWS):
            out[kind] = row
    if MEMORY_ROWS not in out:
        raise CurationError(f"batch {shown(batch_id)} has no record of what it changed; "
                            f"it cannot be undone")
    return out


def _later_change(store: MemoryStore, batch_id: str, first: AuditEntry,
                  touched: set[str]) -> AuditEntry | None:
    """The first later audit row touching the batch's records, leaving out later batches
    that were undone again (with their undo: together they changed nothing)."""
    later = [row for row in store.audit.query(since=first.at, limit=None)
             if row.batch_id != batch_id]
    undid = {row.batch_id: str(row.after["undone"]) for row in later
             if row.action == "undo" and isinstance(row.after, dict) and "undone" in row.after}
    later_batches = {row.batch_id for row in later if row.batch_id}
    cancelled = {b for pair in undid.items() if pair[1] in later_batches for b in pair}
    hits = [row for row in later if touched & set(row.target_ids)
            and (row.batch_id is None or row.batch_id not in cancelled)]
    return min(hits, key=lambda r: (r.at, r.id)) if hits else None


def _undid(store: MemoryStore, undo_batch: str | None) -> str | None:
    """The batch an undo batch undid."""
    for row in store.audit.query(batch_id=undo_batch, limit=None) if undo_batch else ():
        if isinstance(row.after, dict) and "undone" in row.after:
            return str(row.after["undone"])
    return None


def _refusal(store: MemoryStore, batch_id: str, row: AuditEntry, touched: set[str]) -> str:
    which = sorted(touched & set(row.target_ids))[0]
    if row.action == "undo" and _undid(store, row.batch_id) == batch_id:
        return (f"batch {shown(batch_id)} was already undone by batch {shown(row.batch_id)} "
                f"({row.at:%Y-%m-%d %H:%M} UTC); undo that batch to redo it")
    name = f"batch {shown(row.batch_id)}" if row.batch_id else f"audit row {shown(row.id)}"
    hint = ("undo that batch first" if row.batch_id else
            "it cannot be undone by memlens, so this batch cannot be either")
    return (f"cannot undo batch {shown(batch_id)}: {shown(which)} was changed later by "
            f"{shown(row.action)} ({name}, by {shown(row.actor)} at "
            f"{row.at:%Y-%m-%d %H:%M:%S} UTC); {hint}")


def undo(store: MemoryStore, batch_id: str, *, reason: str | None = None,
         dry_run: bool = False) -> CurationReport:
    """Reverse batch `batch_id`: memories and edges it wrote go back to their state before
    it, those it created are removed, those it deleted come back (from the version
    history). The undo is a batch itself (action `undo`), so it can be undone in turn."""

    def build() -> Plan:
        rows = _rows_of(store, batch_id)
        head = rows[MEMORY_ROWS]
        if head.action == "purge":
            raise CurationError(f"batch {shown(batch_id)} was a purge; purged memories are "
                                f"gone from every version and cannot come back")
        memory_ids = list(head.target_ids)
        edge_ids = list(rows[EDGE_ROWS].target_ids) if EDGE_ROWS in rows else []
        touched = set(memory_ids) | set(edge_ids)
        first = min(rows.values(), key=lambda r: r.at)
        later = _later_change(store, batch_id, first, touched)
        if later is not None:
            raise CurationConflictError(_refusal(store, batch_id, later, touched))
        versions: dict[str, Any] = head.before.get("versions") or {}
        then = store.changes.records_at("memory", int(versions["memories"]), memory_ids)
        now = store.get_many(memory_ids, with_vectors=True)
        plan = Plan("undo", memory_ids)
        plan.before.update(now)
        plan.after.update(then)
        if edge_ids:
            edges_then = store.changes.records_at("edge", int(versions["edges"]), edge_ids)
            wanted = set(edge_ids)
            plan.edges_before.update(store.changes.edges_by_id(sorted(wanted)))
            plan.edges_after.update(edges_then)
        plan.notes.append(f"undo of batch {batch_id} ({head.action} by {head.actor} at "
                          f"{head.at:%Y-%m-%d %H:%M:%S} UTC)")
        return plan

    report = run(store, "undo", build, dry_run=dry_run,
                 reason=reason or f"undo of batch {batch_id}",
                 after_write=lambda plan, new_batch: _mark_undone(store, new_batch, batch_id))
    return report


def _mark_undone(store: MemoryStore, undo_batch: str, batch_id: str) -> None:
    """One more row in the undo's batch naming the batch it undid (for `memlens audit` and
    the refusal of a second undo)."""
    rows = store.audit.query(batch_id=undo_batch, limit=None)
    targets = sorted({t for r in rows for t in r.target_ids})
    store.audit.append("undo", targets, batch_id=undo_batch,
                       after={"undone": batch_id}, reason=f"undo of batch {batch_id}")
