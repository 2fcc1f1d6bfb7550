"""Indexes on real LanceDB stores with the fake embedder: what is built, recall, history kept."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.config import preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from memory_core.store.indexes import (
    KEEP_VERSIONS,
    SCALAR_INDEXES,
    ensure_indexes,
    existing_indexes,
    vector_index_recall,
)
from tests.conftest import FakeEmbedder

NOW = datetime(2026, 10, 1, tzinfo=UTC)
TOPICS, PER_TOPIC = 12, 30  # 360 memories


def _corpus(topics: int = TOPICS, per_topic: int = PER_TOPIC) -> list[Memory]:
    """Memories in `topics` clusters: each text takes 4 of its topic's 6 words plus a word of
    its own, so the fake embedder puts topic members close together and others far apart."""
    projects = ("atlas", "herd", "lumen", None)
    types = ("observation", "decision", "lesson", "pattern")
    out = []
    for t in range(topics):
        words = [f"topic{t}word{j}" for j in range(6)]
        for i in range(per_topic):
            n = t * per_topic + i
            text = " ".join([*(words[(i + j) % 6] for j in range(4)), f"unique{n}"])
            out.append(Memory.new(
                text, types[n % 4], project=projects[n % 4], agent=("mason", "steve")[n % 2],
                session_id=f"s{n % 7}", tags=[("red", "blue", "green")[n % 3], f"t{t}"],
                importance=("normal", "critical", "temporary")[n % 3],
                status="archived" if n % 11 == 0 else "active",
                created_at=NOW - timedelta(days=n % 90),
            ))
    return out


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    store.add(_corpus())
    return store


def test_small_store_gets_filter_and_full_text_indexes_but_no_vector_index(
        filled: MemoryStore) -> None:
    report = ensure_indexes(filled)
    indexes = existing_indexes(filled)
    assert set(indexes) == set(SCALAR_INDEXES) | {"content"}
    assert {c: kind for c, (_, kind) in indexes.items()} == {**SCALAR_INDEXES, "content": "FTS"}
    assert set(report.created) == set(indexes)
    assert not report.vector_index and report.recall_at_10 is None
    assert (report.rows, report.vector_rows) == (360, 360)
    assert report.vector_search() == "brute force: 360 rows below the threshold 20000"
    again = ensure_indexes(filled)
    assert again.created == () and {a.action for a in again.actions} == {"current"}


@pytest.mark.slow  # trains a vector index
@pytest.mark.parametrize(("threshold", "force"), [(300, False), (50_000, True)])
def test_vector_index_is_built_above_the_threshold_or_when_forced(
        filled: MemoryStore, threshold: int, force: bool) -> None:
    report = ensure_indexes(filled, vector_threshold=threshold, force_vector=force)
    assert report.vector_index and "vector" in report.created
    assert existing_indexes(filled)["vector"][1] == "IVF_HNSW_SQ"
    assert isinstance(report.recall_at_10, float) and 0.8 <= report.recall_at_10 <= 1.0
    assert vector_index_recall(filled) == report.recall_at_10  # same sample, same seed
    assert report.vector_search().startswith("IVF_HNSW_SQ index over 360 vectors")


@pytest.mark.slow  # trains a vector index
def test_a_store_past_the_hnsw_limit_gets_ivf_sq_and_search_finds_the_same(
        filled: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "topic3word1 topic3word2 topic3word4"
    exact = [h.memory.id for h in search(filled, query, config=preset("vector"), now=NOW)]
    monkeypatch.setattr("memory_core.store.index_rule.HNSW_MAX_VECTORS", 100)
    report = ensure_indexes(filled, vector_threshold=300)
    assert existing_indexes(filled)["vector"][1] == "IVF_SQ"
    assert report.vector_search().startswith("IVF_SQ index over 360 vectors")
    assert "360 > 100 vectors" in report.vector_reason
    assert report.recall_at_10 is not None and report.recall_at_10 >= 0.95
    indexed = [h.memory.id for h in search(filled, query, config=preset("vector"), now=NOW)]
    assert indexed == exact


@pytest.mark.slow  # trains two vector indexes
def test_an_outgrown_vector_index_is_kept_until_a_rebuild_is_asked_for(
        filled: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ensure_indexes(filled, vector_threshold=300)
    assert existing_indexes(filled)["vector"][1] == "IVF_HNSW_SQ"
    monkeypatch.setattr("memory_core.store.index_rule.HNSW_MAX_VECTORS", 100)
    kept = ensure_indexes(filled, vector_threshold=300)
    assert existing_indexes(filled)["vector"][1] == "IVF_HNSW_SQ"
    assert "the rule now says IVF_SQ: `memlens index --rebuild-vector`" in kept.vector_reason
    rebuilt = ensure_indexes(filled, vector_threshold=300, rebuild_vector=True)
    assert existing_indexes(filled)["vector"][1] == "IVF_SQ"
    assert [a.action for a in rebuilt.actions if a.column == "vector"] == ["rebuilt"]
    assert rebuilt.vector_kind == "IVF_SQ" and rebuilt.recall_at_10 is not None


def test_recall_is_exact_without_an_index_and_undefined_without_vectors(
        filled: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    assert vector_index_recall(filled, queries=5) == 1.0
    empty = MemoryStore(filled.tables, tenant="nobody", embedder=fake_embedder)
    assert math.isnan(vector_index_recall(empty))


@pytest.mark.slow  # trains a vector index, then refreshes it
def test_refresh_folds_new_rows_in_and_keeps_every_version(
        filled: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    table = filled.tables.memories
    retention: list[Any] = []
    optimize = table.optimize

    def spy(**kwargs: Any) -> Any:
        retention.append(kwargs.get("cleanup_older_than"))
        return optimize(**kwargs)

    monkeypatch.setattr(table, "optimize", spy)
    ensure_indexes(filled, vector_threshold=300)
    first = filled.changes.history()
    filled.add([Memory.new(f"late topic0word1 topic0word2 note {i}", "observation")
                for i in range(20)])
    report = ensure_indexes(filled, vector_threshold=300)
    assert set(report.refreshed) == set(SCALAR_INDEXES) | {"content", "vector"}
    assert all(a.unindexed_rows == 20 for a in report.actions if a.action == "refreshed")
    assert report.created == ()
    assert all(stats.num_unindexed_rows == 0
               for stats in (table.index_stats(name) for name, _ in
                             existing_indexes(filled).values()))
    after = filled.changes.history()
    assert len(after) >= len(first) and report.versions_after >= report.versions_before
    assert {v.version for v in first} <= {v.version for v in after}
    # LanceDB's default would prune versions older than 7 days: undo needs them all
    assert retention and all(r is not None and r >= KEEP_VERSIONS for r in retention)
    table.checkout(first[1].version)
    assert table.count_rows() == 360
    table.checkout_latest()
    assert table.count_rows() == 380


FILTERS = [
    Filter(),
    Filter(project="atlas"),
    Filter(project=["herd", "lumen"], agent="mason"),
    Filter(tags="red"),
    Filter(tags=["blue", "t3"], tags_mode="all"),
    Filter(memory_type=["decision", "lesson"], importance="critical"),
    Filter(status=["archived"]),
    Filter(session_id="s3", created_after=NOW - timedelta(days=30)),
    Filter(embedding_status="ok", created_before=NOW - timedelta(days=45)),
]


def _observe(store: MemoryStore) -> list[Any]:
    out = []
    for flt in FILTERS:
        hits = search(store, "topic3word1 topic3word2 unique95", flt, preset("hybrid"), 10,
                      now=NOW)
        out.append((store.count(flt), [m.id for m in store.list(flt)],
                    [(h.memory.id, round(h.score, 9)) for h in hits]))
    return out


def test_filtered_results_are_identical_with_and_without_scalar_indexes(
        filled: MemoryStore) -> None:
    predicate = FILTERS[3].to_predicate(filled.tenant)
    assert "ScalarIndexQuery" not in filled.tables.memories.search().where(
        predicate).explain_plan(True)
    before = _observe(filled)
    ensure_indexes(filled)
    assert "ScalarIndexQuery" in filled.tables.memories.search().where(
        predicate).explain_plan(True)
    assert _observe(filled) == before
    assert all(counts for counts, _, _ in before[:4])  # the filters do select something


def test_read_only_store_is_refused(filled: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    from memory_core.model.errors import ReadOnlyError

    reader = MemoryStore(filled.tables, tenant="default", embedder=fake_embedder,
                         read_only=True)
    with pytest.raises(ReadOnlyError, match="memlens index"):
        ensure_indexes(reader)


def test_an_index_run_waits_for_another_writer(filled: MemoryStore) -> None:
    """`memlens index` writes under the store's write lock (issue 42, item 8): while another
    process holds it, the run waits and writes nothing."""
    import fcntl
    import os
    import threading
    import time
    from pathlib import Path

    from memory_core.store.lock import LOCK_FILE

    before = filled.table_versions()
    other = os.open(Path(filled.uri) / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(other, fcntl.LOCK_EX)  # another writer (another open of the lock file)
    reports: list[Any] = []
    run = threading.Thread(target=lambda: reports.append(ensure_indexes(filled)))
    try:
        run.start()
        time.sleep(0.5)
        assert run.is_alive() and filled.table_versions() == before
        assert existing_indexes(filled) == {}
    finally:
        fcntl.flock(other, fcntl.LOCK_UN)
        os.close(other)
        run.join(timeout=60)
    assert set(reports[0].created) == set(SCALAR_INDEXES) | {"content"}


def test_a_failed_index_run_puts_the_table_back(filled: MemoryStore,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that fails after compacting and creating the scalar indexes leaves the table
    as it was: no index, the same rows (the journal's rollback)."""
    rows = sorted(m.id for m in filled.list(limit=None))

    def broken() -> bool:
        raise OSError("disk gone while building the full-text index")

    monkeypatch.setattr(filled.fts, "ensure", broken)
    with pytest.raises(OSError, match="disk gone"):
        ensure_indexes(filled)
    assert existing_indexes(filled) == {}
    assert sorted(m.id for m in filled.list(limit=None)) == rows
    assert filled.guard.interrupted_write() is None  # nothing left for the next open to roll back
