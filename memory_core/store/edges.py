"""The `edges` table of one tenant (`store.edges`): writes, reads and the cached adjacency.

A part of `MemoryStore`, given its table, its tenant, the store's write step, its audit log
and a way to tell which memory ids exist; the adjacency is re-read only when the edges
table's version moves.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa

from memory_core.model.canonical import edge_doc
from memory_core.model.codec import edge_from_row, edge_to_row, rows_to_table
from memory_core.model.errors import InvalidRecordError
from memory_core.model.filters import sql_string
from memory_core.model.records import Edge, validate_edge
from memory_core.store.audit import AuditLog, record_snapshot
from memory_core.store.write_step import WriteStep

#: Which of the given memory ids are memories of the tenant.
PresentIds = Callable[[Sequence[str]], Collection[str]]


def build_adjacency(edges: Sequence[Edge]) -> dict[str, list[Edge]]:
    """node id -> active edges touching it (both directions)."""
    adjacency: dict[str, list[Edge]] = {}
    for edge in edges:
        if edge.status != "active":
            continue
        adjacency.setdefault(edge.source_id, []).append(edge)
        adjacency.setdefault(edge.target_id, []).append(edge)
    return adjacency


class EdgeTable:
    """The edges of one tenant in one `edges` table."""

    def __init__(self, table: Any, tenant: str, *, step: WriteStep, audit: AuditLog,
                 present: PresentIds) -> None:
        self._handle = table
        self._tenant = tenant
        self._step = step
        self._audit = audit
        self._present = present
        self._version: int | None = None
        self._adjacency: dict[str, list[Edge]] = {}

    def _where(self, *, include_inactive: bool = False) -> str:
        where = f"tenant = {sql_string(self._tenant)}"
        return where if include_inactive else where + " AND status = 'active'"

    def add(self, edges: Iterable[Edge], *, check_endpoints: bool = True,
            reason: str | None = None) -> int:
        """Insert edges of this tenant and their audit row, as one write step; endpoints
        must be memories of the tenant unless `check_endpoints` is off. Returns how many."""
        with self._step.writing("add edges"):
            batch = [validate_edge(replace(e, tenant=self._tenant)) for e in edges]
            if not batch:
                return 0
            ends = {e.source_id for e in batch} | {e.target_id for e in batch}
            if check_endpoints:
                missing = sorted(ends - set(self._present(sorted(ends))))
                if missing:
                    raise InvalidRecordError(
                        f"edge endpoint {missing[0]!r} is not a memory of tenant "
                        f"{self._tenant!r}; add the memory first"
                    )
            self._handle.add(rows_to_table([edge_to_row(e) for e in batch],
                                           self._handle.schema))
            self._audit.append(
                "add_edges",
                # the edges, then the memories they link, so a memory's history shows them
                [e.id for e in batch] + sorted(ends),
                after=record_snapshot([edge_doc(e) for e in batch]), reason=reason,
                table_version=int(self._handle.version),
            )
        return len(batch)

    def list(self, *, memory_id: str | None = None, include_inactive: bool = False
             ) -> list[Edge]:
        """Edges of this tenant sorted by id, optionally only those touching `memory_id`."""
        where = self._where(include_inactive=include_inactive)
        if memory_id is not None:
            mid = sql_string(memory_id)
            where += f" AND (source_id = {mid} OR target_id = {mid})"
        table = self._handle.search().where(where).limit(None).to_arrow()
        return [edge_from_row(r) for r in table.sort_by("id").to_pylist()]

    def count(self) -> int:
        """Number of active edges of this tenant."""
        return int(self._handle.count_rows(self._where()))

    def endpoint_table(self, *, with_relation: bool = False) -> pa.Table:
        """source_id and target_id (and `relation` when asked) of every active edge of this
        tenant, as Arrow columns."""
        columns = ["source_id", "target_id", *(["relation"] if with_relation else [])]
        table: pa.Table = (self._handle.search().where(self._where())
                           .select(columns).limit(None).to_arrow())
        return table

    def endpoints(self) -> builtins.list[tuple[str, str]]:
        """(source_id, target_id) of every active edge of this tenant."""
        rows = self.endpoint_table()
        return list(zip(rows["source_id"].to_pylist(), rows["target_id"].to_pylist(),
                        strict=True))

    def adjacency(self) -> dict[str, builtins.list[Edge]]:
        """node id -> active edges touching it, re-read when the table version moved."""
        self._handle.checkout_latest()
        version = int(self._handle.version)
        if version != self._version:
            rows = self._handle.search().where(self._where()).limit(None).to_arrow()
            self._adjacency = build_adjacency([edge_from_row(r) for r in rows.to_pylist()])
            self._version = version
        return self._adjacency
