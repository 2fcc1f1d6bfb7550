"""Running a plan: preview it, or apply it as one batch (one write step, few commits, audit
rows sharing a `batch_id`).

The plan is built again under the store's write lock, from the rows as they are then, so two
writers cannot both act on a stale read; given the preview it confirms (`expect`), a run
refuses when the selected memories changed since (`CurationConflictError`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from memory_core.curation.plan import Plan
from memory_core.curation.report import CurationReport
from memory_core.model.canonical import edge_doc, memory_doc
from memory_core.model.errors import CurationConflictError, CurationError
from memory_core.model.records import AuditEntry, Edge, Memory
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore
from memory_core.store.audit import FULL_RECORD_LIMIT, record_snapshot

#: The `before["kind"]` of a batch's audit rows: which table the row's records belong to.
MEMORY_ROWS, EDGE_ROWS = "memory", "edge"


def tombstone(memory: Memory, *, actor: str, reason: str | None) -> dict[str, Any]:
    """What a purge keeps of a memory: who removed which id and content hash, when, why."""
    return {"id": memory.id, "content_hash": memory.content_hash, "purged": True,
            "purged_by": actor, "purged_at": utcnow().isoformat(), "why": reason}


def _memory_docs(memories: list[Memory], plan: Plan, store: MemoryStore,
                 reason: str | None) -> Any:
    if plan.purge:
        return [tombstone(m, actor=store.actor, reason=reason) for m in memories]
    if len(memories) > FULL_RECORD_LIMIT:
        return {"count": len(memories)}  # what record_snapshot keeps, without the copies
    return record_snapshot([memory_doc(m) for m in memories])


def _edge_docs(edges: list[Edge]) -> Any:
    if len(edges) > FULL_RECORD_LIMIT:
        return {"count": len(edges)}
    return record_snapshot([edge_doc(e) for e in edges])


def _entry(action: str, target_ids: list[str], batch_id: str, reason: str | None, *,
           before: Any, after: Any, table_version: int | None) -> AuditEntry:
    """One audit row of a batch (the store fills in its tenant and actor)."""
    return AuditEntry(id=str(uuid.uuid4()), at=utcnow(), tenant="", actor="", action=action,
                      target_ids=tuple(target_ids), before=before, after=after, reason=reason,
                      table_version=table_version, batch_id=batch_id)


def run(store: MemoryStore, action: str, build: Callable[[], Plan], *, dry_run: bool,
        reason: str | None, expect: CurationReport | None = None,
        after_write: Callable[[Plan, str], None] | None = None) -> CurationReport:
    """Preview (`dry_run`) or apply the plan `build` makes; returns the report.

    `after_write(plan, batch_id)` runs inside the same write step once the rows and audit
    are written (a purge scrubs and compacts there).
    """
    if dry_run:
        return build().report(dry_run=True)
    with store.writing(action):
        plan = build()  # under the lock: from the rows as they are now
        if expect is not None:
            _check_basis(plan, expect)
        if not plan.touched and not plan.touched_edges:
            raise CurationError(f"nothing to {plan.action}: "
                                f"{'; '.join(plan.notes) or 'no change'}")
        versions = store.table_versions()
        applied = store.changes.apply(plan.changeset())
        batch_id = str(uuid.uuid4())
        touched = plan.touched
        rows = [_entry(plan.action, touched, batch_id, reason,
                       before={"kind": MEMORY_ROWS, "versions": versions,
                               "records": _memory_docs([plan.before[i] for i in touched
                                                        if i in plan.before], plan, store,
                                                       reason)},
                       after={"kind": MEMORY_ROWS,
                              "records": _memory_docs([plan.after[i] for i in touched
                                                       if i in plan.after], plan, store,
                                                      reason)},
                       table_version=applied.versions.get("memories"))]
        edge_ids = plan.touched_edges
        if edge_ids:
            rows.append(_entry(
                plan.action, edge_ids, batch_id, reason,
                before={"kind": EDGE_ROWS, "versions": versions,
                        "records": _edge_docs([plan.edges_before[i] for i in edge_ids
                                               if i in plan.edges_before])},
                after={"kind": EDGE_ROWS,
                       "records": _edge_docs([plan.edges_after[i] for i in edge_ids
                                              if i in plan.edges_after])},
                table_version=applied.versions.get("edges")))
        store.audit.append_many(rows)  # one commit for the batch's rows
        if after_write is not None:
            after_write(plan, batch_id)
        return plan.report(dry_run=False, batch_id=batch_id, versions=store.table_versions())


def _check_basis(plan: Plan, expect: CurationReport) -> None:
    now = plan.report(dry_run=True)
    if now.basis == expect.basis:
        return
    changed = sorted(i for i in set(now.basis) | set(expect.basis)
                     if now.basis.get(i) != expect.basis.get(i))
    raise CurationConflictError(
        f"memory {shown(changed[0])} (and {len(changed) - 1} more) changed since the preview; "
        f"nothing was changed: preview again" if len(changed) > 1 else
        f"memory {shown(changed[0])} changed since the preview; nothing was changed: "
        f"preview again"
    )
