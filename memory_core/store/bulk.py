"""Arrow-level reads and writes of a store's tables, for the engines that work in bulk.

The importer appends staged Arrow batches, the recovery drill deletes and restores a tenant,
re-embedding rewrites the vector column, benchmarks write synthetic rows: they do it through
`store.bulk` (a `BulkTables`), never through the LanceDB tables themselves, so the store keeps
its caches (the id/content-hash index, the adjacency) right and every table access stays in
`memory_core.store`. Every write goes through `store.writing` (so a read-only store refuses
it before anything is written); callers append the audit row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memory_core.model.codec import vector_field
from memory_core.model.filters import sql_string
from memory_core.model.schema import ROW_KEY, TABLE_OF_KIND
from memory_core.store.keys import KeyIndex
from memory_core.store.rollback import remove_old_versions, why_not_ours, why_not_restorable
from memory_core.store.tables import StoreTables
from memory_core.store.write_step import WriteStep

if TYPE_CHECKING:
    from memory_core.embedding import Embedder

#: LanceDB's `optimize` deletes versions older than its `cleanup_older_than` (7 days by
#: default); memlens' undo restores from version history, so this keeps them for a century.
KEEP_VERSIONS = timedelta(days=36_500)


#: Why `restore` kept a table it could have restored: another table cannot be.
KEPT_ALONG = "kept with the other tables, so that they stay consistent"


@dataclass(frozen=True)
class Restored:
    """What `BulkTables.restore` did: the tables put back, and those it kept as they are
    because their recorded version cannot be read any more (table name -> why)."""

    restored: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """One line: what was put back and what was kept, and why."""
        parts = [f"{', '.join(self.restored) or 'no table'} restored to the versions before it"]
        along = [name for name, why in self.kept.items() if why == KEPT_ALONG]
        parts += [f"{name} kept at its latest version: {why}" for name, why in self.kept.items()
                  if why != KEPT_ALONG]
        if along:
            parts.append(f"{', '.join(along)} kept at their latest versions too, so that the "
                         f"tables stay consistent")
        return "; ".join(parts)


class BulkTables:
    """Bulk operations on the tables of one store (all tenants unless a method says), given
    the tables, the store's tenant, its write step, its key index and how to make a new
    embedder the store's (`set_vector_model`)."""

    def __init__(self, tables: StoreTables, tenant: str, *, step: WriteStep, keys: KeyIndex,
                 use_model: Callable[[Embedder], None]) -> None:
        self._tables = tables
        self._tenant = tenant
        self._step = step
        self._keys = keys
        self._use_model = use_model

    def _table_of(self, kind: str) -> Any:
        if kind not in TABLE_OF_KIND:
            raise ValueError(f"unknown record kind {kind!r}; use one of: "
                             f"{', '.join(TABLE_OF_KIND)}")
        return getattr(self._tables, TABLE_OF_KIND[kind])


    def append(self, kind: str, data: pa.Table | pa.RecordBatchReader) -> int:
        """Append rows already in the table's schema (one commit); returns the version."""
        with self._step.writing("append"):
            table = self._table_of(kind)
            table.add(data)
            self._step.forget_caches()
            return int(table.version)

    def owners(self, kind: str, ids: Sequence[str]) -> dict[str, str]:
        """The tenant of each of `ids` that exists in the table of `kind` (any tenant)."""
        if not ids:
            return {}
        if kind == "memory":
            return self._keys.tenants_of(ids)
        rows = self._table_of(kind).search().select(["id", "tenant"]).limit(None).to_arrow()
        wanted = set(ids)
        return {i: t for i, t in zip(rows["id"].to_pylist(), rows["tenant"].to_pylist(),
                                     strict=True) if i in wanted}

    def count(self, kind: str, where: str | None = None) -> int:
        """Rows of the table of `kind` matching `where` (all rows, every tenant, without)."""
        return int(self._table_of(kind).count_rows(where))

    def scan(self, columns: Sequence[str], where: str | None = None) -> pa.Table:
        """`columns` of every memory row matching `where`, in any tenant."""
        query = self._tables.memories.search()
        if where:
            query = query.where(where)
        return query.select(list(columns)).limit(None).to_arrow()

    def update(self, rows: pa.Table) -> int:
        """Overwrite the given columns of existing memories by (tenant, id): `rows` holds
        both columns (one commit)."""
        with self._step.writing("update"):
            table = self._tables.memories
            table.merge_insert(ROW_KEY).when_matched_update_all().execute(rows)
            self._step.forget_caches()
            return int(table.version)

    def delete_ids(self, kind: str, ids: Sequence[str]) -> None:
        """Delete the rows of `kind` with these ids (any tenant)."""
        with self._step.writing("delete ids"):
            if ids:
                self._table_of(kind).delete(f"id IN ({', '.join(sql_string(i) for i in ids)})")
                self._step.forget_caches()

    def delete_tenant(self) -> None:
        """Delete every row of the store's tenant from the three tables."""
        with self._step.writing("delete tenant"):
            where = f"tenant = {sql_string(self._tenant)}"
            for kind in TABLE_OF_KIND:
                self._table_of(kind).delete(where)
            self._step.forget_caches()

    def other_tenants_rows(self) -> dict[str, int]:
        """Rows of other tenants, by table name."""
        where = f"NOT (tenant = {sql_string(self._tenant)})"
        return {TABLE_OF_KIND[kind]: self.count(kind, where) for kind in TABLE_OF_KIND}

    def drop_tables(self) -> None:
        """Drop the three tables (every tenant's rows); reopen the store to recreate them."""
        with self._step.writing("drop tables"):
            for name in TABLE_OF_KIND.values():
                self._tables.db.drop_table(name)

    def restore(self, versions: dict[str, int], *, written_before: float | None = None
                ) -> Restored:
        """Put each table named in `versions` back to that version when it moved (LanceDB
        keeps the versions in between), all of them or none.

        When one table's version cannot be read any more (gone from disk, lacking files,
        or, committed after `written_before` when the versions were recorded, another
        table's made again since), every table is kept at its latest version: restoring it
        would commit a version that cannot be read, and restoring only the others would
        mix the write's before and after. The result says which were put back or kept.
        """
        self._step.check_writable("restore")
        named = self._tables.named()
        moved, out, blocked = {}, Restored(), False
        for name, version in versions.items():
            table = named.get(name)
            if table is None:
                out.kept[name] = "the table is gone"
                continue
            table.checkout_latest()
            if int(table.version) == version:
                continue
            why = why_not_restorable(table, version, written_before=written_before)
            if why is not None:
                out.kept[name], blocked = why, True
            moved[name] = version
        if blocked:
            for name in sorted(moved.keys() - out.kept.keys()):
                out.kept[name] = KEPT_ALONG
            return out
        for name, version in moved.items():
            named[name].restore(version)
            out.restored.append(name)
        self._step.forget_caches()
        return out

    def remove_old_versions(self, versions: dict[str, int] | None = None, *,
                            written_before: float | None = None) -> Restored:
        """Remove every version but the latest of every table from disk (a purge's last
        step, run by the write guard once the purge is committed); the result lists the
        tables cleaned up as `restored`.

        With `versions` (a clean-up journal's committed versions, recorded at
        `written_before`) only those tables are, and a table whose recorded version is not
        its own any more (dropped and made again since) is kept as it is.
        """
        self._step.check_writable("remove old versions")
        out = Restored()
        for name, table in self._tables.named().items():
            if versions is not None:
                if name not in versions:
                    continue
                why = why_not_ours(table, versions[name], written_before=written_before)
                if why is not None:
                    out.kept[name] = why
                    continue
            remove_old_versions(table)
            out.restored.append(name)
        self._step.forget_caches()
        return out

    def set_vector_model(self, embedder: Embedder) -> None:
        """Replace the vector column by an empty one for `embedder`'s model and dimension
        (every tenant), and make `embedder` the store's; fill it with `update`."""
        with self._step.writing("set vector model"):
            table = self._tables.memories
            table.drop_columns(["vector"])
            table.add_columns(vector_field(embedder.dimension, embedder.model_id))
            self._use_model(embedder)

    def optimize(self) -> None:
        """Compact the memories table and fold new rows into its indexes (every version kept:
        `KEEP_VERSIONS`)."""
        with self._step.writing("optimize"):
            self._tables.memories.optimize(cleanup_older_than=KEEP_VERSIONS)

    def hybrid_baseline(self, text: str, vector: Sequence[float], where: str, k: int
                        ) -> pa.Table:
        """LanceDB's own hybrid search (cosine, its RRF reranker): the benchmark baseline."""
        return (self._tables.memories.search(query_type="hybrid").vector(list(vector))
                .text(text).distance_type("cosine").where(where, prefilter=True).limit(k)
                .to_arrow())
