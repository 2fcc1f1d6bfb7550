"""Top-m queries over the memories table (`store.queries`): cosine nearest neighbours and
BM25 full text.

Both run under a tenant-scoped predicate pushed down as a pre-filter, so a filtered search
never sees rows outside the filter. The full-text index is the store's `FullTextIndex`
(`store.fts`, made on first use when the store is writable); rows written since are searched
too (LanceDB searches unindexed rows), and `memlens index` folds them in.

This part is also how a search reaches the speed-up layer (`memory_core.store.accel`) without
knowing it: `nearest_held` (the vector top-m from rows held in memory), `held_columns` and
`session_order`. With the layer off they answer None, nothing and an uncached order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from memory_core.model.filters import Filter
from memory_core.store.accel import Accelerators
from memory_core.store.accel.arrow_query import collect, query
from memory_core.store.accel.session_order import SessionOrder
from memory_core.store.accel.vector_search_in_memory import nearest_held
from memory_core.store.found import Found, vector_arrays
from memory_core.store.tables import StoreTables

FTS_COLUMN = "content"


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


class MemoryQueries:
    """The top-m queries of one store's tenant, given its tables and its speed-up layer."""

    def __init__(self, tables: StoreTables, tenant: str, accel: Accelerators) -> None:
        self._tables = tables
        self._tenant = tenant
        self._accel = accel

    def nearest(self, vector: Sequence[float], predicate: str, m: int, *,
                with_content: bool = False) -> list[Found]:
        """The top-m memories by cosine similarity (the score), best first."""
        from memory_core.store.index_rule import tuned

        table = collect(tuned(query(self._tables.memories)
                              .nearest_to(np.asarray(vector, dtype=np.float32))
                              .column("vector"), m)
                        .distance_type("cosine").where(predicate)
                        .select([*_columns(with_content, False), "_distance"]).with_row_id()
                        .limit(m))
        return _found(table, [1.0 - float(d) for d in table["_distance"].to_pylist()])

    def full_text(self, text: str, predicate: str, m: int, *, with_content: bool = False,
                  with_vector: bool = False) -> list[Found]:
        """The top-m memories by BM25 over `content` (the score), best first (ties by id);
        nothing for a blank query."""
        if not text.strip():
            return []
        table = collect(query(self._tables.memories).nearest_to_text(text, columns=FTS_COLUMN)
                        .where(predicate)
                        .select([*_columns(with_content, with_vector), "_score"])
                        .with_row_id().limit(m))
        found = _found(table, [float(s) for s in table["_score"].to_pylist()])
        return sorted(found, key=lambda f: (-f.score, f.id))

    def nearest_held(self, vector: Sequence[float], flt: Filter, m: int
                     ) -> list[Found] | None:
        """The top-m under `flt` by cosine, from the rows held in memory
        (`accel/vector_search_in_memory.py`); None when they cannot answer for the latest
        version (then `nearest` does)."""
        return nearest_held(self._accel, self._tenant, vector, flt, m)

    @property
    def accelerated(self) -> bool:
        """Whether the speed-up layer is on (off with `accel=False`, MEMLENS_ACCEL=0): with
        it off a search also runs its engines one after the other on the caller's thread
        (`retrieval/search_threads.py`)."""
        return self._accel.enabled

    def held_columns(self) -> frozenset[str]:
        """The columns that reads by row id (`store.rows`) take from memory at the latest
        version: none until the row cache holds that version, or with the speed-up off."""
        cache = self._accel.row_cache
        if cache.version is None:
            return frozenset()
        return cache.holds_now(self._accel.latest.version())

    def session_order(self) -> SessionOrder:
        """This tenant's memories in session order (cached per table version), for session
        context."""
        return self._accel.sessions
