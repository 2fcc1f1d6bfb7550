"""Change sets: the rows one curation batch writes, removes or puts back, in few commits.

A `ChangeSet` lists whole records to write (insert or replace by id) and ids to remove, for
memories and for edges. `apply_changes` writes it in at most four commits (memories upsert,
memories delete, edges upsert, edges delete) plus the audit commit, inside the store's write
step, so a failure half way puts every table back (`store.writing`). `records_at` reads records
as they were at an older table version: what undo puts back. `ChangeTables` (`store.changes`)
is given the tables, the tenant, the store's write step, its guard (a purge's removal of old
versions waits for the commit) and its full-text index (a purge rebuilds it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core.model.codec import (
    edge_from_row,
    edge_to_row,
    memory_from_row,
    memory_to_row,
    rows_to_table,
)
from memory_core.model.errors import StoreBusyError, VersionGoneError
from memory_core.model.filters import in_chunks, sql_in, sql_string
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import EDGES, MEMORIES, ROW_KEY
from memory_core.store.bulk import KEEP_VERSIONS
from memory_core.store.full_text_index import FullTextIndex
from memory_core.store.guard import WriteGuard
from memory_core.store.reports import VersionInfo
from memory_core.store.tables import StoreTables
from memory_core.store.write_step import WriteStep


@dataclass(frozen=True)
class ChangeSet:
    """Rows to write (whole records, inserted or replaced by id) and ids to remove."""

    memories: tuple[Memory, ...] = ()
    deleted_memories: tuple[str, ...] = ()
    edges: tuple[Edge, ...] = ()
    deleted_edges: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.memories or self.deleted_memories or self.edges or self.deleted_edges)


@dataclass
class Applied:
    """What `apply_changes` committed: the table versions after each table's commits."""

    versions: dict[str, int] = field(default_factory=dict)
    commits: int = 0


def _write(table: Any, rows: list[dict[str, Any]], deleted: Sequence[str], tenant: str
           ) -> int:
    """Upsert `rows` by (tenant, id) and delete `deleted` ids of `tenant` in `table`; the
    commits."""
    commits = 0
    if rows:
        data = rows_to_table(rows, table.schema)
        # a pending memory's vector is null: kept so, as `upsert` does
        table.merge_insert(ROW_KEY).when_matched_update_all().when_not_matched_insert_all() \
            .execute(data, on_bad_vectors="null")
        commits += 1
    for chunk in in_chunks(list(deleted)):
        table.delete(f"tenant = {sql_string(tenant)} AND {sql_in('id', chunk)}")
        commits += 1
    return commits


def _versions_of(table: Any) -> set[int]:
    return {int(v["version"]) for v in table.list_versions()}


class ChangeTables:
    """`store.changes`: the change sets curation writes and the version history it reads
    (undo, purge, verification), over one store's tables."""

    def __init__(self, tables: StoreTables, tenant: str, *, step: WriteStep,
                 guard: WriteGuard, fts: FullTextIndex) -> None:
        self._tables = tables
        self._tenant = tenant
        self._step = step
        self._guard = guard
        self._fts = fts

    def _of_tenant(self) -> str:
        return f"tenant = {sql_string(self._tenant)}"

    def apply(self, changes: ChangeSet) -> Applied:
        """Write a change set (whole records in, ids out) in at most four commits, as one
        write step; callers append the audit rows inside the same step.

        Writers on one machine are serialised by the write lock; writers elsewhere (a store
        on object storage) can still collide in LanceDB's commit: that is a `StoreBusyError`
        saying to run the action again (the write step puts back what was written), never a
        silent overwrite.
        """
        with self._step.writing("apply changes"):
            try:
                return self._apply(changes)
            except (OSError, RuntimeError, ValueError) as exc:
                if "conflict" not in str(exc).lower():
                    raise
                raise StoreBusyError(
                    f"another writer changed {self._tables.uri} while this change was being "
                    f"written (a LanceDB commit conflict); nothing of it was kept: run it again"
                ) from exc

    def _apply(self, changes: ChangeSet) -> Applied:
        tables, out = self._tables, Applied()
        out.commits += _write(tables.memories, [memory_to_row(m) for m in changes.memories],
                              changes.deleted_memories, self._tenant)
        out.commits += _write(tables.edges, [edge_to_row(e) for e in changes.edges],
                              changes.deleted_edges, self._tenant)
        self._step.forget_caches()
        out.versions = {MEMORIES: int(tables.memories.version),
                        EDGES: int(tables.edges.version)}
        return out

    def edges_touching(self, ids: Sequence[str]) -> list[Edge]:
        """Every edge of the tenant, any status, with an end among `ids` (sorted by id)."""
        found: dict[str, Edge] = {}
        for chunk in in_chunks(list(dict.fromkeys(ids))):
            where = (f"{self._of_tenant()} AND ({sql_in('source_id', chunk)} OR "
                     f"{sql_in('target_id', chunk)})")
            rows = self._tables.edges.search().where(where).limit(None).to_arrow()
            for row in rows.to_pylist():
                found[row["id"]] = edge_from_row(row)
        return [found[k] for k in sorted(found)]

    def edges_by_id(self, ids: Sequence[str]) -> dict[str, Edge]:
        """The edges of the tenant (any status) with these ids."""
        found: dict[str, Edge] = {}
        for chunk in in_chunks(list(dict.fromkeys(ids))):
            rows = self._tables.edges.search() \
                .where(f"{self._of_tenant()} AND {sql_in('id', chunk)}").limit(None).to_arrow()
            for row in rows.to_pylist():
                found[row["id"]] = edge_from_row(row)
        return found

    def records_at(self, kind: str, version: int, ids: Sequence[str]) -> dict[str, Any]:
        """The records of `kind` ("memory" or "edge") with these ids in the tenant as they
        were at table `version` (memories with vectors); ids absent then are left out.

        `VersionGoneError` when that version is no longer on disk (a purge cleans old
        versions).
        """
        name = MEMORIES if kind == "memory" else EDGES
        if version not in _versions_of(getattr(self._tables, name)):
            raise VersionGoneError(
                f"version {version} of the {name} table is no longer on disk (a purge removes "
                f"older versions); this change can no longer be undone"
            )
        handle = self._tables.db.open_table(name)
        handle.checkout(version)
        decode = memory_from_row if kind == "memory" else edge_from_row
        found: dict[str, Any] = {}
        for chunk in in_chunks(list(dict.fromkeys(ids))):
            rows = handle.search().where(f"{self._of_tenant()} AND {sql_in('id', chunk)}") \
                .limit(None).to_arrow()
            for row in rows.to_pylist():
                found[row["id"]] = decode(row)
        return found

    def drop_old_versions(self) -> dict[str, int]:
        """Rewrite every data file holding a deleted row, rebuild the full-text index, and
        have every version but the latest removed from disk, old index files included, once
        the write is committed (a purge: nothing older can be restored or undone
        afterwards), as one write step. Returns how many versions each table had before.

        Nothing is removed inside the write: its journal may roll back to the versions
        before it, so they stay until the write guard has committed it
        (`WriteGuard.remove_old_versions_at_commit`).
        """
        with self._step.writing("drop old versions"):
            names = tuple(self._tables.named())
            counts = {}
            for name in names:
                table = getattr(self._tables, name)
                counts[name] = len(table.list_versions())
                # LanceDB's own compaction leaves a data file alone until over 10% of its
                # rows are deleted: rewrite every file holding a deleted row, or the row stays
                # on disk (the indexes are remapped to the new files as part of it)
                table.to_lance().optimize.compact_files(materialize_deletions_threshold=0.0)
                table.checkout_latest()
            # a fresh index holds no token of deleted rows (the old one's files go at the
            # commit); made even when there was none, since the next search would make one
            # after the cleanup
            self._fts.build()
            for name in names:
                # fold new rows into the indexes now (a new version), keeping every version:
                # the removal at the commit then has nothing left to fold
                getattr(self._tables, name).optimize(cleanup_older_than=KEEP_VERSIONS)
            self._guard.remove_old_versions_at_commit()
            self._step.forget_caches()
            return counts

    def history(self) -> list[VersionInfo]:
        """Every version of the memories table, oldest first, with its row count."""
        out = []
        for v in self._tables.memories.list_versions():
            meta = v.get("metadata", {}) if isinstance(v, dict) else {}
            rows = meta.get("total_rows")
            out.append(VersionInfo(version=int(v["version"]), timestamp=v.get("timestamp"),
                                   rows=int(rows) if rows is not None else None))
        return out

    def versions_on_disk(self, name: str) -> list[int]:
        """The versions of table `name` (memories, edges, audit) still on disk, oldest
        first."""
        return sorted(_versions_of(getattr(self._tables, name)))

    def rows_in_version(self, name: str, version: int, where: str,
                        columns: Sequence[str]) -> list[dict[str, Any]]:
        """`columns` of the rows of table `name` at `version` matching `where` (any tenant:
        `where` must scope itself)."""
        handle = self._tables.db.open_table(name)
        handle.checkout(version)
        return handle.search().where(where).select(list(columns)).limit(None).to_arrow() \
            .to_pylist()
