"""Canonical export lines of a store's tables, in id order, in bounded memory.

Every reader works on a `Snapshot` (`store.snapshot()`: the tables pinned at fixed
versions, so a write made while an export runs does not tear it), which hands over the rows
sorted by id a chunk at a time; each chunk is rendered one canonical line per record. Only one
chunk of records is ever held, so memory stays flat as the store grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.exchange.row_docs import edge_docs, memory_docs
from memory_core.exchange.vector_text import splice_vector, vector_json
from memory_core.model.canonical import audit_doc, event_doc
from memory_core.model.codec import audit_from_row, event_from_row
from memory_core.model.filters import sql_string
from memory_core.model.values import canonical_json
from memory_core.store import Snapshot

CHUNK_ROWS = 4096
Progress = Callable[[int], None]


def memory_columns(snap: Snapshot, *, with_vectors: bool) -> list[str]:
    """The memory columns an export reads (the vector only when it is exported)."""
    return [n for n in snap.columns("memory") if with_vectors or n != "vector"]


def render_memories(chunk: pa.Table, *, with_vectors: bool) -> list[tuple[str, str]]:
    """(id, canonical line) of each memory row of `chunk`, in the chunk's order."""
    vectors = vector_json(chunk["vector"]) if with_vectors else None
    docs = memory_docs(chunk.drop(["vector"]) if with_vectors else chunk)
    out = []
    for i, doc in enumerate(docs):
        if vectors is None:
            out.append((doc["id"], canonical_json(doc)))
        else:
            doc["vector"] = None
            out.append((doc["id"], splice_vector(canonical_json(doc), vectors[i])))
    return out


def memory_lines(snap: Snapshot, where: str, *, with_vectors: bool = False,
                 chunk_rows: int = CHUNK_ROWS, progress: Progress | None = None
                 ) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each memory matching `where`, sorted by id."""
    names = memory_columns(snap, with_vectors=with_vectors)
    for chunk in snap.chunks("memory", where, columns=names, chunk_rows=chunk_rows):
        lines = render_memories(chunk, with_vectors=with_vectors)
        yield from lines
        if progress is not None:
            progress(len(lines))


def edge_lines(snap: Snapshot, tenant: str, *, endpoints: pa.Array | None = None,
               chunk_rows: int = CHUNK_ROWS) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each edge of `tenant`, any status, sorted by id; with
    `endpoints`, only edges whose source and target are both among them."""
    where = f"tenant = {sql_string(tenant)}"
    for chunk in snap.chunks("edge", where, chunk_rows=chunk_rows):
        if endpoints is not None:
            inside = pc.and_(pc.is_in(chunk["source_id"], value_set=endpoints),
                             pc.is_in(chunk["target_id"], value_set=endpoints))
            chunk = chunk.filter(inside)
        for doc in edge_docs(chunk):
            yield doc["id"], canonical_json(doc)


def audit_lines(snap: Snapshot, tenant: str, *, chunk_rows: int = CHUNK_ROWS
                ) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each audit row of `tenant`, sorted by id."""
    where = f"tenant = {sql_string(tenant)}"
    for chunk in snap.chunks("audit", where, chunk_rows=chunk_rows):
        for row in chunk.to_pylist():
            yield row["id"], canonical_json(audit_doc(audit_from_row(row)))


def event_lines(snap: Snapshot, tenant: str, *, memory_ids: pa.Array | None = None,
                chunk_rows: int = CHUNK_ROWS) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each event of `tenant`, sorted by id; with `memory_ids`, only
    the events of those memories. A v1 store opened read-only has none."""
    if not snap.has("event"):
        return
    where = f"tenant = {sql_string(tenant)}"
    for chunk in snap.chunks("event", where, chunk_rows=chunk_rows):
        if memory_ids is not None:
            chunk = chunk.filter(pc.is_in(chunk["memory_id"], value_set=memory_ids))
        for row in chunk.to_pylist():
            yield row["id"], canonical_json(event_doc(event_from_row(row)))
