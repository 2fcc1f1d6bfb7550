"""A read-only view of a store's four tables pinned at one version each, read in id order.

Exports and diffs read through a `Snapshot`, so a write made while they run does not tear
them. Rows come back sorted by id a chunk at a time: the sorted id list (ids and LanceDB row
ids only) is read first, then the rows are fetched by row id in chunks, the next chunk read
(LanceDB releases the GIL) while the caller works on the current one, so memory stays flat
as the store grows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.schema import MEMORIES, TABLE_OF_KIND
from memory_core.store.tables import StoreTables


def _pinned(tables: StoreTables, name: str, version: int | None) -> tuple[Any, int]:
    live = getattr(tables, name)
    live.checkout_latest()
    wanted = int(live.version) if version is None else version
    handle = tables.db.open_table(name)
    handle.checkout(wanted)
    return handle, wanted


def _sorted_ids(table: Any, where: str | None) -> pa.Table:
    """`id` and `_rowid` of the rows matching `where`, sorted by id."""
    query = table.search()
    if where:
        query = query.where(where)
    return query.select(["id"]).with_row_id(True).limit(None).to_arrow().sort_by("id")


def _take(table: Any, wanted: pa.Array, columns: list[str]) -> pa.Table:
    got = table.take_row_ids(wanted.to_pylist()).select(columns).with_row_id().to_arrow()
    # take returns rows in storage order; put them back in id order
    return got.take(pc.index_in(wanted, value_set=got["_rowid"])).drop(["_rowid"])


@dataclass(frozen=True)
class Snapshot:
    """The memories, edges and audit tables of a store pinned at one version each."""

    handles: dict[str, Any]
    versions: dict[str, int]

    def has(self, kind: str) -> bool:
        """Whether the snapshot holds a table of `kind` (a v1 store opened read-only has
        no events table)."""
        return TABLE_OF_KIND[kind] in self.handles

    def columns(self, kind: str) -> list[str]:
        """The column names of the table holding records of `kind`."""
        return list(self.handles[TABLE_OF_KIND[kind]].schema.names)

    def chunks(self, kind: str, where: str | None, *, columns: Sequence[str] | None = None,
               chunk_rows: int = 4096) -> Iterator[pa.Table]:
        """The rows of `kind` matching `where`, sorted by id, `chunk_rows` at a time."""
        table = self.handles[TABLE_OF_KIND[kind]]
        names = list(columns) if columns is not None else self.columns(kind)
        row_ids = _sorted_ids(table, where)["_rowid"]
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-take") as pool:
            pending: Future[pa.Table] | None = None
            for start in range(0, len(row_ids), chunk_rows):
                wanted = row_ids.slice(start, chunk_rows).combine_chunks()
                following = pool.submit(_take, table, wanted, names)
                if pending is not None:
                    yield pending.result()
                pending = following
            if pending is not None:
                yield pending.result()


def snapshot(tables: StoreTables, *, memories_version: int | None = None) -> Snapshot:
    """The tables at their current versions (memories at `memories_version` when given);
    the store's own handles are untouched. A v1 store opened read-only has no events."""
    handles, versions = {}, {}
    for name in tables.named():
        version = memories_version if name == MEMORIES else None
        handles[name], versions[name] = _pinned(tables, name, version)
    return Snapshot(handles, versions)
