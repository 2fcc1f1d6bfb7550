"""Top-m queries over the memories table: cosine nearest neighbours and BM25 full text.

Both run under a tenant-scoped predicate pushed down as a pre-filter, so a filtered search
never sees rows outside the filter. The full-text index is created on first use when the
store is writable; rows written since are searched too (LanceDB searches unindexed rows), and
`memlens index` folds them in.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa

from memory_core.store.accel.arrow_query import collect, query

if TYPE_CHECKING:
    from memory_core.store.memory_store import MemoryStore

log = logging.getLogger(__name__)

FTS_COLUMN = "content"


class Found(NamedTuple):
    """One row a top-m query found: its memory id, the engine's score and its LanceDB row
    id (so that later reads of it skip the id look-up: `store.rows`); its content and vector
    when the query was asked for them (session context scores with them, and taking them
    with the query costs a millisecond where reading them again costs ten)."""

    id: str
    score: float
    row_id: int
    content: str | None = None
    vector: Any = None  # a float32 numpy array


def vector_arrays(column: pa.ChunkedArray) -> list[Any]:
    """Each vector of an Arrow vector column as a float32 numpy array (None for none): one
    conversion of the whole column, not a Python list per vector."""
    column = column.combine_chunks()
    if not len(column):
        return []
    if column.null_count == 0 and pa.types.is_fixed_size_list(column.type):
        return list(np.asarray(column.flatten().to_numpy(zero_copy_only=False),
                               dtype=np.float32).reshape(len(column), -1))
    return [None if v is None else np.asarray(v, dtype=np.float32)
            for v in column.to_pylist()]


def _found(table: pa.Table, scores: Sequence[float]) -> list[Found]:
    """`Found` rows of a query's Arrow result (`scores` in its row order)."""
    ids, rows = table["id"].to_pylist(), table["_rowid"].to_pylist()
    contents = (table["content"].to_pylist() if "content" in table.column_names
                else [None] * len(ids))
    vectors = (vector_arrays(table["vector"]) if "vector" in table.column_names
               else [None] * len(ids))
    return [Found(i, float(s), int(r), c, v) for i, s, r, c, v in zip(
        ids, scores, rows, contents, vectors, strict=True)]


def _columns(with_content: bool, with_vector: bool) -> list[str]:
    return ["id", *(["content"] if with_content else []), *(["vector"] if with_vector else [])]


def has_fts_index(store: MemoryStore) -> bool:
    """Whether the memories table has a full-text index on `content`."""
    return any(getattr(i, "index_type", "") == "FTS" and FTS_COLUMN in i.columns
               for i in store.tables.memories.list_indices())


def ensure_fts_index(store: MemoryStore) -> bool:
    """Create the full-text index if it is missing and the store is writable.

    Returns whether an index exists now.
    """
    if store.fts_ready or has_fts_index(store):
        store.fts_ready = True
        return True
    if store.read_only:
        return False  # a read never writes: search runs without BM25 (the caller says so)
    from memory_core.store.tokenisation import build_fts_index

    with store.writing("full-text index"):
        # under the lock: another process may have built it while this one waited
        store.tables.memories.checkout_latest()
        if not has_fts_index(store):
            settings = build_fts_index(store, FTS_COLUMN)
            log.info("created the full-text index on %s (%s)", FTS_COLUMN, settings)
    store.fts_ready = True
    return True


def nearest(store: MemoryStore, vector: Sequence[float], predicate: str, m: int, *,
            with_content: bool = False) -> list[Found]:
    """The top-m memories by cosine similarity (the score), best first."""
    from memory_core.store.index_rule import tuned

    table = collect(tuned(query(store.tables.memories)
                          .nearest_to(np.asarray(vector, dtype=np.float32)).column("vector"), m)
                    .distance_type("cosine").where(predicate)
                    .select([*_columns(with_content, False), "_distance"]).with_row_id()
                    .limit(m))
    return _found(table, [1.0 - float(d) for d in table["_distance"].to_pylist()])


def full_text(store: MemoryStore, text: str, predicate: str, m: int, *,
              with_content: bool = False, with_vector: bool = False) -> list[Found]:
    """The top-m memories by BM25 over `content` (the score), best first (ties by id);
    nothing for a blank query."""
    if not text.strip():
        return []
    table = collect(query(store.tables.memories).nearest_to_text(text, columns=FTS_COLUMN)
                    .where(predicate)
                    .select([*_columns(with_content, with_vector), "_score"]).with_row_id()
                    .limit(m))
    found = _found(table, [float(s) for s in table["_score"].to_pylist()])
    return sorted(found, key=lambda f: (-f.score, f.id))
