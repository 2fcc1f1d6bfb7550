"""The `edges` table of one tenant: writes, reads and the cached adjacency.

A component of `MemoryStore` (which checks writability and endpoints before calling in); the
adjacency is re-read only when the edges table's version moves.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from memory_core.model.codec import edge_from_row, edge_to_row, rows_to_table
from memory_core.model.filters import sql_string
from memory_core.model.records import Edge


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

    def __init__(self, table: Any, tenant: str) -> None:
        self._handle = table
        self._tenant = tenant
        self._version: int | None = None
        self._adjacency: dict[str, list[Edge]] = {}

    def _where(self, *, include_inactive: bool = False) -> str:
        where = f"tenant = {sql_string(self._tenant)}"
        return where if include_inactive else where + " AND status = 'active'"

    def append(self, edges: Sequence[Edge]) -> int:
        """Append validated edges of this tenant; returns the table version after."""
        rows = [edge_to_row(e) for e in edges]
        self._handle.add(rows_to_table(rows, self._handle.schema))
        return int(self._handle.version)

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
