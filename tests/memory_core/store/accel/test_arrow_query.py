"""Queries built on LanceDB's async API (`store/accel/arrow_query.py`) return what LanceDB's own
synchronous search returns, row for row and in order, under a pre-filter."""

from __future__ import annotations

from typing import Any

import pytest

from memory_core.model.errors import StoreLocationError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from memory_core.store.accel.arrow_query import query
from memory_core.store.index_rule import tuned

TOPICS = ["deploy the database migration", "rotate the api keys", "cache warm-up on start",
          "retry the flaky upload", "the database index is stale"]


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    store.add([Memory.new(f"{TOPICS[i % 5]} note {i}", "fact", project=f"p{i % 3}")
               for i in range(40)])
    assert store.fts.ensure()
    return store


def test_nearest_is_lancedbs_vector_search(filled: MemoryStore) -> None:
    where = filled.predicate(Filter(project=["p0", "p1"]))
    vector = filled.embedder.embed_one("database migration").tolist()
    ours = filled.queries.nearest(vector, where, 7, with_content=True)
    theirs = (tuned(filled.tables.memories.search(vector, vector_column_name="vector"), 7)
              .distance_type("cosine").where(where, prefilter=True)
              .select(["id", "content"]).with_row_id(True).limit(7).to_arrow())
    assert [f.id for f in ours] == theirs["id"].to_pylist()
    assert [f.row_id for f in ours] == theirs["_rowid"].to_pylist()
    assert [f.content for f in ours] == theirs["content"].to_pylist()
    assert [round(f.score, 5) for f in ours] == [
        round(1 - d, 5) for d in theirs["_distance"].to_pylist()]
    assert {filled.get(f.id).project for f in ours} <= {"p0", "p1"}


def test_full_text_is_lancedbs_bm25(filled: MemoryStore) -> None:
    where = filled.predicate(Filter(project="p2"))
    ours = filled.queries.full_text("database index", where, 5)
    theirs = (filled.tables.memories.search("database index", query_type="fts",
                                            fts_columns="content")
              .where(where, prefilter=True).select(["id", "_score"]).limit(5).to_arrow())
    expected = sorted(zip(theirs["_score"].to_pylist(), theirs["id"].to_pylist(),
                          strict=True), key=lambda p: (-p[0], p[1]))
    assert [(round(f.score, 5), f.id) for f in ours] == [(round(s, 5), i)
                                                         for s, i in expected]
    assert ours and all(filled.get(f.id).project == "p2" for f in ours)


def test_a_plain_query_has_no_limit(filled: MemoryStore) -> None:
    rows = filled.rows.read(list(range(40)), filled.predicate(), ["id"])
    assert rows.num_rows == 40


class _NotLanceDB:
    """A table handle of some other kind (no async table behind it)."""

    def search(self) -> Any:  # pragma: no cover - never reached
        raise AssertionError


def test_a_table_without_an_async_table_is_refused_with_a_clear_error() -> None:
    with pytest.raises(StoreLocationError, match="no async table"):
        query(_NotLanceDB())
