"""`build_bench_store`, the public way to the benchmarks' synthetic store (the app's
`memlens bench pages` builds its store with it): what it writes, read back. Never timings."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core import STATUSES, Filter, MemoryStore, build_bench_store


def test_it_writes_n_memories_and_a_tenth_as_many_edges_unindexed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # nothing is embedded
    built = build_bench_store(tmp_path, 300, index=False)
    assert built.uri == str(tmp_path / "store")
    assert (built.memories, built.index_s) == (300, None) and built.write_s > 0
    store = MemoryStore.open(built.uri, read_only=True, create=False, check_vectors=False)
    assert store.count(Filter(status=STATUSES)) == 300
    assert store.edges.count() == built.edges and 0 < built.edges <= 300 // 10


def test_it_indexes_unless_told_not_to_and_takes_the_edges_asked_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    built = build_bench_store(tmp_path, 200, edges=0)
    assert built.edges == 0 and built.index_s is not None and built.index_s >= 0


def test_an_empty_store_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1 memory, not 0"):
        build_bench_store(tmp_path, 0)
