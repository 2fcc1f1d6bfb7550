"""Candidate engines: vector (cosine top-m) and BM25 (LanceDB's native full-text index).

Both run under the same tenant-scoped `Filter` predicate, pushed down as a pre-filter, so a
filtered search never sees rows outside the filter; the queries themselves are the store's
(`store.queries`, a `MemoryQueries`). Here their rows become ranked `Candidate`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core.model.filters import Filter
from memory_core.store import MemoryStore
from memory_core.store.queries import FTS_COLUMN

__all__ = ["FTS_COLUMN", "Candidate", "bm25_candidates", "vector_candidates"]


@dataclass(frozen=True)
class Candidate:
    """One engine's hit: id, 1-based rank and the engine's raw score."""

    doc_id: str
    rank: int
    score: float
    #: its LanceDB row id when the engine's query returned one (reads of it skip the id
    #: look-up); None for the graph's
    row_id: int | None = None
    #: its content and vector (float32 array) when the engine's query was asked for them
    #: (session context scores with them); not part of the candidate's identity
    content: str | None = field(default=None, compare=False, repr=False)
    vector: Any = field(default=None, compare=False, repr=False)


def vector_candidates(store: MemoryStore, query_vector: Sequence[float], predicate: str,
                      m: int, *, with_content: bool = False, flt: Filter | None = None
                      ) -> list[Candidate]:
    """Top-m memories by cosine similarity (score = 1 - cosine distance). Given the
    `flt` that `predicate` was written from, the rows the row cache holds answer when they
    can (`store.queries.nearest_held`: a lighter query, LanceDB's own hits on an exact
    store); their contents are then read from the cache, not returned here."""
    held = flt is not None and predicate == flt.to_predicate(store.tenant)
    found = (store.queries.nearest_held(query_vector, flt, m) if held and flt is not None
             else None)
    if found is None:
        found = store.queries.nearest(query_vector, predicate, m, with_content=with_content)
    return [Candidate(f.id, r, f.score, f.row_id, f.content) for r, f in enumerate(found, 1)]


def bm25_candidates(store: MemoryStore, query: str, predicate: str, m: int, *,
                    with_content: bool = False, with_vector: bool = False
                    ) -> list[Candidate]:
    """Top-m memories by BM25 over `content` (LanceDB's native full-text search)."""
    return [Candidate(f.id, r, f.score, f.row_id, f.content, f.vector) for r, f in enumerate(
        store.queries.full_text(query, predicate, m, with_content=with_content,
                                with_vector=with_vector), 1)]
