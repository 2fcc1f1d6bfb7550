"""Top-m queries over the memories table: cosine nearest neighbours and BM25 full text.

Both run under a tenant-scoped predicate pushed down as a pre-filter, so a filtered search
never sees rows outside the filter. The full-text index is created on first use when the
store is writable; rows written since are searched too (LanceDB searches unindexed rows), and
`memlens index` folds them in.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memory_core.store.memory_store import MemoryStore

log = logging.getLogger(__name__)

FTS_COLUMN = "content"


class Found(NamedTuple):
    """One row a top-m query found: its memory id, the engine's score and its LanceDB row
    id (so that later reads of it skip the id look-up: `store.rows`)."""

    id: str
    score: float
    row_id: int


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
        return False
    from memory_core.store.tokenisation import build_fts_index

    with store.writing("full-text index"):
        settings = build_fts_index(store.tables.memories, FTS_COLUMN)
    log.info("created the full-text index on %s (%s)", FTS_COLUMN, settings)
    store.fts_ready = True
    return True


def nearest(store: MemoryStore, vector: Sequence[float], predicate: str, m: int
            ) -> list[Found]:
    """The top-m memories by cosine similarity (the score), best first."""
    from memory_core.store.index_rule import tuned

    table = tuned(store.tables.memories.search(list(vector), vector_column_name="vector")
                  .distance_type("cosine").where(predicate, prefilter=True)
                  .select(["id", "_distance"]).with_row_id(True).limit(m)).to_arrow()
    return [Found(i, 1.0 - float(d), int(r)) for i, d, r in zip(
        table["id"].to_pylist(), table["_distance"].to_pylist(), table["_rowid"].to_pylist(),
        strict=True)]


def full_text(store: MemoryStore, query: str, predicate: str, m: int) -> list[Found]:
    """The top-m memories by BM25 over `content` (the score), best first (ties by id);
    nothing for a blank query."""
    if not query.strip():
        return []
    table = (store.tables.memories.search(query, query_type="fts", fts_columns=FTS_COLUMN)
             .where(predicate, prefilter=True).select(["id", "_score"]).with_row_id(True)
             .limit(m).to_arrow())
    found = [Found(i, float(s), int(r)) for i, s, r in zip(
        table["id"].to_pylist(), table["_score"].to_pylist(), table["_rowid"].to_pylist(),
        strict=True)]
    return sorted(found, key=lambda f: (-f.score, f.id))
