"""The row cache (`store.accel.row_cache`): the tenant's rows held in memory per table version,
the same values the Lance file gives, never an older version's, built only once a version
is read often, and the searches that read through it unchanged."""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import lance
import pyarrow as pa
import pytest

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.candidates import engine_candidates
from memory_core.retrieval.config import preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from memory_core.store.accel import row_cache
from memory_core.store.accel.row_cache import RowCache


def _rows(store: MemoryStore, memories: list[Memory]) -> dict[str, int]:
    return store.rows.locate([m.id for m in memories], store.predicate())


def _file(store: MemoryStore, row_ids: list[int], columns: list[str]) -> list[dict]:
    dataset = store.accel.latest.current()
    got = dataset._take_rows(sorted(row_ids), columns=[*columns, "_rowid"])
    return _plain(got)


def _plain(table: pa.Table) -> list[dict]:
    return [{k: (list(v) if k == "vector" and v is not None else v) for k, v in row.items()}
            for row in table.to_pylist()]


def test_held_rows_are_the_files_rows_of_the_tenant(store_path: str, store: MemoryStore
                                                    ) -> None:
    mine = [Memory.new(f"note {i} about caches", "fact", project="p", tags=["a", "b"],
                       session_id="s1") for i in range(3)]
    store.add(mine)
    other = MemoryStore.open(store_path, embedder=store.embedder, tenant="other")
    theirs = Memory.new("their note about caches", "fact")
    other.add([theirs])
    cache = RowCache(store.tenant, warm_reads=1, background=False)
    rows = _rows(store, mine)
    their_row = _rows(other, [theirs])[theirs.id]
    columns = store.memory_columns(with_vectors=True)
    dataset = store.accel.latest.current()
    held = cache.take(dataset, sorted([*rows.values(), their_row, 987654321]), columns)
    assert held is not None and cache.version == dataset.version
    assert _plain(held) == _file(store, list(rows.values()), columns)
    assert {r["id"] for r in held.to_pylist()} == {m.id for m in mine}


def test_a_version_is_held_only_after_it_is_read_often(store: MemoryStore) -> None:
    memory = Memory.new("the cache holds sessions", "fact")
    store.add([memory])
    cache = RowCache(store.tenant, warm_reads=3, background=False)
    row = list(_rows(store, [memory]).values())
    dataset = store.accel.latest.current()
    assert cache.take(dataset, row, ["id"]) is None
    assert cache.take(dataset, row, ["id"]) is None
    assert cache.version is None  # nothing scanned for the first reads
    assert cache.take(dataset, row, ["id"]).to_pylist() == [{"id": memory.id,
                                                             "_rowid": row[0]}]


def test_a_write_is_never_answered_from_the_older_version(store: MemoryStore) -> None:
    memory = Memory.new("the cache holds sessions for an hour", "fact")
    store.add([memory, Memory.new("an unrelated note", "fact")])
    store.accel.row_cache = RowCache(store.tenant, warm_reads=1, background=False)
    rows = {r: i for i, r in _rows(store, [memory]).items()}
    assert store.rows.memories(rows)[memory.id].content == memory.content
    held_at = store.accel.row_cache.version
    edited = replace(memory, content="the cache holds sessions for a day")
    store.upsert([edited])  # a new version; the old row id is gone
    assert store.rows.memories(rows)[memory.id].content == edited.content
    assert store.accel.row_cache.version != held_at
    new_rows = {r: i for i, r in _rows(store, [memory]).items()}
    taken = store.rows.take(list(new_rows), ["id", "content"]).to_pylist()
    assert [(t["id"], t["content"]) for t in taken] == [(memory.id, edited.content)]


def test_the_scan_runs_in_the_background_and_reads_never_wait(store: MemoryStore) -> None:
    memory = Memory.new("the cache holds sessions", "fact")
    store.add([memory])
    cache = RowCache(store.tenant, warm_reads=1)
    row = list(_rows(store, [memory]).values())
    dataset = store.accel.latest.current()
    assert cache.take(dataset, row, ["id"]) is None  # the scan starts; this read goes on
    assert cache.wait(30)
    assert cache.take(dataset, row, ["id", "content"]).to_pylist() == [
        {"id": memory.id, "content": memory.content, "_rowid": row[0]}]
    cache.invalidate()
    assert cache.version is None and cache.holds_now(dataset.version) == frozenset()


def test_limits_keep_large_tables_and_vectors_in_the_file(store: MemoryStore) -> None:
    memories = [Memory.new(f"note {i}", "fact") for i in range(3)]
    store.add(memories)
    rows = sorted(_rows(store, memories).values())
    dataset = store.accel.latest.current()
    too_many = RowCache(store.tenant, max_rows=2, warm_reads=1, background=False)
    assert too_many.take(dataset, rows, ["id"]) is None
    assert too_many.version == dataset.version  # decided once for the version
    store.accel.row_cache = RowCache(store.tenant, vector_rows=2, warm_reads=1, background=False)
    assert store.accel.row_cache.take(dataset, rows, ["id", "vector"]) is None
    assert store.accel.row_cache.holds_now(dataset.version) >= {"id", "content"}
    assert "vector" not in store.accel.row_cache.holds_now(dataset.version)
    # a read asking for the vector takes it from the file, the rest from memory
    assert _plain(store.rows.take(rows, ["id", "vector"])) == _file(store, rows, ["id", "vector"])


def test_searches_read_through_the_cache_unchanged(store_path: str, store: MemoryStore
                                                   ) -> None:
    start = datetime(2026, 10, 1, tzinfo=UTC)
    turns = ["where should the cache live", "in redis, next to the sessions",
             "how long do sessions last", "an hour, then they expire",
             "who owns the redis cluster", "the platform team runs it"]
    memories = [Memory.new(text, "dialogue", session_id=f"s{i // 3}", agent=f"a{i % 2}",
                           project="p", created_at=start + timedelta(minutes=i))
                for i, text in enumerate(turns)]
    store.add(memories)
    cold = MemoryStore.open(store_path, embedder=store.embedder)
    cold.accel.row_cache = RowCache(cold.tenant, warm_reads=10**6)  # never held: the file
    store.accel.row_cache = RowCache(store.tenant, warm_reads=1, background=False)
    for name in ("hybrid", "hybrid_graph", "full"):
        for query, flt in (("redis cache", Filter()), ("sessions expire", Filter(project="p"))):
            warm_hits = search(store, query, flt, preset(name), 5, now=start)
            cold_hits = search(cold, query, flt, preset(name), 5, now=start)
            assert [(h.memory, h.score, h.engines) for h in warm_hits] == \
                [(h.memory, h.score, h.engines) for h in cold_hits]
            assert warm_hits.hits
    assert store.accel.row_cache.version == store.accel.latest.version()
    assert any(h.engines["bm25"].context for h in search(store, "redis cache", None,
                                                          preset("hybrid"), 5, now=start)
               if "bm25" in h.engines)


def _blocked_scans(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Make background scans wait for the returned event before reading."""
    release = threading.Event()
    read = row_cache.HeldRows.read

    def blocked(*args: object) -> object:
        release.wait(30)
        return read(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(row_cache.HeldRows, "read", blocked)
    return release


def _scan_started(store: MemoryStore, monkeypatch: pytest.MonkeyPatch
                  ) -> tuple[Memory, RowCache, list[int], threading.Event]:
    """A store of one memory and a cache whose background scan of it has begun and waits
    for the returned event."""
    memory = Memory.new("the cache holds sessions for an hour", "fact")
    store.add([memory])
    release = _blocked_scans(monkeypatch)
    cache = RowCache(store.tenant, warm_reads=1)
    row = list(_rows(store, [memory]).values())
    assert cache.take(store.accel.latest.current(), row, ["id"]) is None  # the scan begins
    return memory, cache, row, release


def test_a_scan_invalidated_while_it_runs_is_not_kept(store: MemoryStore,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _, cache, _, release = _scan_started(store, monkeypatch)
    cache.invalidate()  # a bulk write said so while the scan ran
    release.set()
    assert cache.wait(30)
    assert cache.version is None


def test_a_scan_of_an_older_version_never_answers_a_newer_one(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    memory, cache, row, release = _scan_started(store, monkeypatch)
    store.upsert([replace(memory, content="the cache holds sessions for a day")])
    new = store.accel.latest.current()
    assert cache.take(new, row, ["content"]) is None  # the new version is not held
    release.set()
    assert cache.wait(30)
    assert cache.take(new, row, ["content"]) is None  # the old version's scan is not it
    assert cache.version is None  # and its rows were let go


def test_forgetting_caches_forgets_the_rows(store: MemoryStore) -> None:
    store.add([Memory.new("a note", "fact")])
    store.accel.row_cache = RowCache(store.tenant, warm_reads=1, background=False)
    dataset = store.accel.latest.current()
    assert store.accel.row_cache.take(dataset, [0], ["id"]) is not None
    store.forget_caches()
    assert store.accel.row_cache.version is None


def test_held_rows_make_the_engines_queries_lean(store_path: str, store: MemoryStore) -> None:
    """With the rows held, the BM25 and vector queries return no contents or vectors (session
    context reads them from memory); without, they do."""
    memories = [Memory.new(text, "dialogue", session_id="s1", agent=f"a{i % 2}",
                           created_at=datetime(2026, 10, 1, tzinfo=UTC) + timedelta(minutes=i))
                for i, text in enumerate(["where does the cache live", "in redis"])]
    store.add(memories)
    cold = MemoryStore.open(store_path, embedder=store.embedder)
    store.accel.row_cache = RowCache(store.tenant, warm_reads=1, background=False)
    cfg = preset("hybrid")
    store.accel.row_cache.take(store.accel.latest.current(), [0], ["id"])  # warm
    lean = engine_candidates(store, "cache redis", Filter(), cfg, 10).rankings
    full = engine_candidates(cold, "cache redis", Filter(), cfg, 10).rankings
    assert lean["bm25"] and lean["vector"] and full["bm25"] and full["vector"]
    assert all(c.content is None and c.vector is None for e in lean.values() for c in e)
    assert all(c.content is not None for e in full.values() for c in e)
    assert all(c.vector is not None for c in full["bm25"])


EXITING_SCRIPT = """
import sys, lance
from memory_core.store.accel.row_cache import RowCache
dataset = lance.dataset(sys.argv[1])
cache = RowCache("t", warm_reads=1, max_rows=10**7)
cache.take(dataset, [0, 1], ["id"])  # starts the background scan; the process exits now
"""


@pytest.mark.slow
def test_a_process_exiting_during_a_scan_exits_cleanly(tmp_path: Path) -> None:
    n = 400_000
    table = pa.table({
        "tenant": pa.array(["t"] * n),
        "id": pa.array([f"id-{i:08d}" for i in range(n)]),
        "content": pa.array([f"the content of memory number {i} " * 4 for i in range(n)])})
    lance.write_dataset(table, str(tmp_path / "big.lance"), max_rows_per_file=50_000)
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", EXITING_SCRIPT, str(tmp_path / "big.lance")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
