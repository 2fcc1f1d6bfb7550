"""Edges, the audit log and access records of one tenant: mixed into `MemoryStore`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

import pyarrow as pa

from memory_core.audit import AuditLog, record_snapshot
from memory_core.canonical import edge_doc
from memory_core.codec import edge_from_row, edge_to_row, rows_to_table
from memory_core.errors import InvalidRecordError
from memory_core.filters import sql_string
from memory_core.records import AuditEntry, Edge, utcnow, validate_edge

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memory_core.records import Memory
    from memory_core.tables import StoreTables


class EdgeAndAuditOps:
    """Edge writes and reads, audit reads, access records; mixed into `MemoryStore`."""

    tables: StoreTables
    tenant: str
    actor: str
    audit: AuditLog

    def _writable(self) -> None:  # provided by MemoryStore
        raise NotImplementedError

    def get_many(self, ids: Sequence[str], *, with_vectors: bool = False) -> dict[str, Memory]:
        raise NotImplementedError  # provided by MemoryStore

    def add_edges(
        self, edges: Iterable[Edge], *, check_endpoints: bool = True, reason: str | None = None
    ) -> int:
        """Insert edges of this tenant; endpoints must exist unless `check_endpoints` is off."""
        self._writable()
        batch = [validate_edge(replace(e, tenant=self.tenant)) for e in edges]
        if not batch:
            return 0
        if check_endpoints:
            ends = {e.source_id for e in batch} | {e.target_id for e in batch}
            known = self.get_many(sorted(ends))
            missing = sorted(ends - set(known))
            if missing:
                raise InvalidRecordError(
                    f"edge endpoint {missing[0]!r} is not a memory of tenant {self.tenant!r}; "
                    f"add the memory first"
                )
        rows = [edge_to_row(e) for e in batch]
        self.tables.edges.add(rows_to_table(rows, self.tables.edges.schema))
        self.audit.append(
            tenant=self.tenant, actor=self.actor, action="add_edges",
            # the edges, then the memories they link, so a memory's history shows its links
            target_ids=[r["id"] for r in rows] + sorted(
                {e.source_id for e in batch} | {e.target_id for e in batch}),
            after=record_snapshot([edge_doc(e) for e in batch]),
            reason=reason, table_version=int(self.tables.edges.version),
        )
        return len(rows)

    def edges(self, *, memory_id: str | None = None, include_inactive: bool = False
              ) -> list[Edge]:
        """Edges of this tenant, optionally only those touching `memory_id`."""
        where = f"tenant = {sql_string(self.tenant)}"
        if not include_inactive:
            where += " AND status = 'active'"
        if memory_id is not None:
            mid = sql_string(memory_id)
            where += f" AND (source_id = {mid} OR target_id = {mid})"
        table = self.tables.edges.search().where(where).limit(None).to_arrow()
        return [edge_from_row(r) for r in table.sort_by("id").to_pylist()]

    def count_edges(self) -> int:
        """Number of active edges of this tenant."""
        where = f"tenant = {sql_string(self.tenant)} AND status = 'active'"
        return int(self.tables.edges.count_rows(where))

    def audit_entries(
        self, *, memory_id: str | None = None, limit: int = 50
    ) -> list[AuditEntry]:
        """The newest audit entries of this tenant, optionally for one memory."""
        return self.audit.entries(self.tenant, target_id=memory_id, limit=limit)

    def record_access(self, ids: Sequence[str], *, at: datetime | None = None,
                      reason: str | None = None) -> int:
        """Count one recall of each memory: access_count + 1, last_accessed_at = `at`.

        Only `recall` calls this; searching and browsing never change access statistics.
        """
        self._writable()
        current = self.get_many(ids)
        if not current:
            return 0
        when = at or utcnow()
        ordered = sorted(current)
        update = pa.table({
            "id": pa.array(ordered, pa.string()),
            "access_count": pa.array([current[i].access_count + 1 for i in ordered], pa.int32()),
            "last_accessed_at": pa.array([when] * len(ordered), pa.timestamp("us", tz="UTC")),
        })
        self.tables.memories.merge_insert("id").when_matched_update_all().execute(update)
        self.audit.append(
            tenant=self.tenant, actor=self.actor, action="recall", target_ids=ordered,
            after={"access_count": {i: current[i].access_count + 1 for i in ordered}},
            reason=reason, table_version=int(self.tables.memories.version),
        )
        return len(ordered)
