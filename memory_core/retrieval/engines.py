"""Candidate engines: vector (cosine top-m) and BM25 (LanceDB's native full-text index).

Both run under the same tenant-scoped `Filter` predicate, pushed down as a pre-filter, so a
filtered search never sees rows outside the filter.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from memory_core.store import MemoryStore

log = logging.getLogger(__name__)

FTS_COLUMN = "content"


@dataclass(frozen=True)
class Candidate:
    """One engine's hit: id, 1-based rank and the engine's raw score."""

    doc_id: str
    rank: int
    score: float


def has_fts_index(store: MemoryStore) -> bool:
    """Whether the memories table has a full-text index on `content`."""
    return any(getattr(i, "index_type", "") == "FTS" and FTS_COLUMN in i.columns
               for i in store.tables.memories.list_indices())


def ensure_fts_index(store: MemoryStore) -> bool:
    """Create the full-text index if it is missing and the store is writable.

    New rows need no rebuild: LanceDB searches rows the index has not seen yet too, and
    `memlens index` (or `optimize`) folds them in. Returns whether an index exists now.
    """
    if store.fts_ready or has_fts_index(store):
        store.fts_ready = True
        return True
    if store.read_only:
        return False
    from lancedb.index import FTS

    store.tables.memories.create_index(FTS_COLUMN, config=FTS(), replace=True)
    log.info("created the full-text index on %s", FTS_COLUMN)
    store.fts_ready = True
    return True


def vector_candidates(store: MemoryStore, query_vector: Sequence[float], predicate: str,
                      m: int) -> list[Candidate]:
    """Top-m memories by cosine similarity (score = 1 - cosine distance)."""
    table = (store.tables.memories.search(list(query_vector), vector_column_name="vector")
             .distance_type("cosine").where(predicate, prefilter=True)
             .select(["id", "_distance"])
             .limit(m).to_arrow())
    ids, distances = table["id"].to_pylist(), table["_distance"].to_pylist()
    return [Candidate(i, r, 1.0 - float(d)) for r, (i, d) in enumerate(zip(ids, distances,
                                                                             strict=True), 1)]


def bm25_candidates(store: MemoryStore, query: str, predicate: str, m: int) -> list[Candidate]:
    """Top-m memories by BM25 over `content` (LanceDB's native full-text search)."""
    if not query.strip():
        return []
    table = (store.tables.memories.search(query, query_type="fts", fts_columns=FTS_COLUMN)
             .where(predicate, prefilter=True).select(["id", "_score"]).limit(m).to_arrow())
    ids, scores = table["id"].to_pylist(), table["_score"].to_pylist()
    ranked = sorted(zip(ids, scores, strict=True), key=lambda p: (-float(p[1]), p[0]))
    return [Candidate(i, r, float(s)) for r, (i, s) in enumerate(ranked, 1)]
