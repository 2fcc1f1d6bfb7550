"""Canonical export lines of a store's tables, in id order, in bounded memory.

The sorted id list of the selected rows is read first (ids and LanceDB row ids only); the rows
are then fetched by row id in chunks, in that order, and rendered one canonical line each. Only
one chunk of records is ever held, so memory stays flat as the store grows.

Every reader works on a `Snapshot`: handles of the three tables checked out at fixed versions,
so a write made while an export runs does not tear it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.canonical import audit_doc
from memory_core.codec import audit_from_row
from memory_core.exchange.row_docs import edge_docs, memory_docs
from memory_core.exchange.vector_text import splice_vector, vector_json
from memory_core.filters import sql_string
from memory_core.records import canonical_json
from memory_core.schema import AUDIT, EDGES, MEMORIES
from memory_core.tables import StoreTables

CHUNK_ROWS = 4096
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Snapshot:
    """The memories, edges and audit tables of a store pinned at one version each."""

    memories: Any
    edges: Any
    audit: Any
    versions: dict[str, int]


def _pinned(tables: StoreTables, name: str, version: int | None) -> tuple[Any, int]:
    live = getattr(tables, name)
    live.checkout_latest()
    latest = int(live.version)
    wanted = latest if version is None else version
    handle = tables.db.open_table(name)
    handle.checkout(wanted)
    return handle, wanted


def snapshot(tables: StoreTables, *, memories_version: int | None = None) -> Snapshot:
    """Handles of the three tables at their current versions (memories at
    `memories_version` when given); the store's own handles are untouched."""
    memories, mv = _pinned(tables, MEMORIES, memories_version)
    edges, ev = _pinned(tables, EDGES, None)
    audit, av = _pinned(tables, AUDIT, None)
    return Snapshot(memories, edges, audit, {MEMORIES: mv, EDGES: ev, AUDIT: av})


def sorted_ids(table: Any, where: str | None) -> pa.Table:
    """`id` and `_rowid` of the rows matching `where`, sorted by id."""
    query = table.search()
    if where:
        query = query.where(where)
    ids = query.select(["id"]).with_row_id(True).limit(None).to_arrow()
    return ids.sort_by("id")


def _take(table: Any, wanted: pa.Array, columns: list[str]) -> pa.Table:
    got = table.take_row_ids(wanted.to_pylist()).select(columns).with_row_id().to_arrow()
    # take returns rows in storage order; put them back in id order
    return got.take(pc.index_in(wanted, value_set=got["_rowid"])).drop(["_rowid"])


def _chunks(table: Any, order: pa.Table, columns: list[str],
            chunk_rows: int) -> Iterator[pa.Table]:
    """The rows in `order`, a chunk at a time; the next chunk is read from LanceDB (which
    releases the GIL) while the caller formats the current one."""
    row_ids = order["_rowid"]
    starts = range(0, len(row_ids), chunk_rows)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-take") as pool:
        pending: Future[pa.Table] | None = None
        for start in starts:
            wanted = row_ids.slice(start, chunk_rows).combine_chunks()
            following = pool.submit(_take, table, wanted, columns)
            if pending is not None:
                yield pending.result()
            pending = following
        if pending is not None:
            yield pending.result()


def memory_lines(table: Any, where: str, *, with_vectors: bool = False,
                 chunk_rows: int = CHUNK_ROWS, progress: Progress | None = None
                 ) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each memory matching `where`, sorted by id."""
    names = [n for n in table.schema.names if with_vectors or n != "vector"]
    for chunk in _chunks(table, sorted_ids(table, where), names, chunk_rows):
        vectors = vector_json(chunk["vector"]) if with_vectors else None
        docs = memory_docs(chunk.drop(["vector"]) if with_vectors else chunk)
        for i, doc in enumerate(docs):
            if vectors is None:
                yield doc["id"], canonical_json(doc)
            else:
                doc["vector"] = None
                yield doc["id"], splice_vector(canonical_json(doc), vectors[i])
        if progress is not None:
            progress(len(docs))


def edge_lines(table: Any, tenant: str, *, endpoints: pa.Array | None = None,
               chunk_rows: int = CHUNK_ROWS) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each edge of `tenant`, any status, sorted by id; with
    `endpoints`, only edges whose source and target are both among them."""
    where = f"tenant = {sql_string(tenant)}"
    for chunk in _chunks(table, sorted_ids(table, where), table.schema.names, chunk_rows):
        if endpoints is not None:
            inside = pc.and_(pc.is_in(chunk["source_id"], value_set=endpoints),
                             pc.is_in(chunk["target_id"], value_set=endpoints))
            chunk = chunk.filter(inside)
        for doc in edge_docs(chunk):
            yield doc["id"], canonical_json(doc)


def audit_lines(table: Any, tenant: str, *, chunk_rows: int = CHUNK_ROWS
                ) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each audit row of `tenant`, sorted by id."""
    where = f"tenant = {sql_string(tenant)}"
    for chunk in _chunks(table, sorted_ids(table, where), table.schema.names, chunk_rows):
        for row in chunk.to_pylist():
            yield row["id"], canonical_json(audit_doc(audit_from_row(row)))
