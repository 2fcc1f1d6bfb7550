"""Reads by LanceDB row id (`store.rows`): the rows a query returned, read again without
the id look-up, the current memory when a write moved its row, and only the store's tenant."""

from __future__ import annotations

from dataclasses import replace

from memory_core.model.records import Memory
from memory_core.store import MemoryStore


def test_a_moved_row_is_read_again_by_its_id(store: MemoryStore) -> None:
    memory = Memory.new("the cache holds sessions for an hour", "fact", project="p")
    store.add([memory, Memory.new("an unrelated note", "fact")])
    found = store.queries.full_text("cache sessions", store.predicate(), 5)
    assert [f.id for f in found] == [memory.id]
    rows = {f.row_id: f.id for f in found}
    assert store.rows.memories(rows)[memory.id].content == memory.content
    edited = replace(memory, content="the cache holds sessions for a day")
    store.upsert([edited])  # rewrites the row: the old row id is gone
    assert store.rows.locate([memory.id], store.predicate())[memory.id] not in rows
    assert store.rows.memories(rows)[memory.id].content == edited.content


def test_reads_keep_to_the_tenant(store_path: str, store: MemoryStore) -> None:
    mine = Memory.new("a note about caches", "fact")
    store.add([mine])
    theirs_store = MemoryStore.open(store_path, embedder=store.embedder, tenant="other")
    theirs = Memory.new("their note about caches", "fact")
    theirs_store.add([theirs])
    rows = theirs_store.rows.locate([theirs.id], theirs_store.predicate())
    assert store.rows.memories({rows[theirs.id]: theirs.id}) == {}
    assert store.rows.read(list(rows.values()), store.predicate(), ["id"]).num_rows == 0
    assert store.rows.take(list(rows.values()), ["id"]).num_rows == 0
    both = [*rows.values(), *store.rows.locate([mine.id], store.predicate()).values()]
    assert store.rows.take(both, ["id", "content"]).to_pylist() == [
        {"id": mine.id, "content": mine.content,
         "_rowid": store.rows.locate([mine.id], store.predicate())[mine.id]}]


def test_take_reads_the_rows_a_query_returned_and_survives_a_delete(store: MemoryStore) -> None:
    kept = Memory.new("the cache holds sessions", "fact")
    gone = Memory.new("the cache evicts sessions", "fact")
    store.add([kept, gone])
    found = store.queries.full_text("cache sessions", store.predicate(), 5, with_content=True,
                      with_vector=True)
    assert {f.id: f.content for f in found} == {kept.id: kept.content, gone.id: gone.content}
    assert all(f.vector is not None and f.vector.shape == (store.dimension,) for f in found)
    rows = [f.row_id for f in found]
    taken = store.rows.take(rows, ["id", "content"])
    assert dict(zip(taken["id"].to_pylist(), taken["content"].to_pylist(), strict=True)) == {
        kept.id: kept.content, gone.id: gone.content}
    store.bulk.delete_ids("memory", [gone.id])  # a row the take would name is deleted
    taken = store.rows.take(rows, ["id"])
    assert taken["id"].to_pylist() == [kept.id]
