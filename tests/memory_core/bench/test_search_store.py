"""`memlens bench search --store URI`: both runs side by side, the scratch prefix removed
afterwards, a location that cannot be reached refused before the local run. Never timings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import memory_core.bench.search_store as search_store
from memory_core.bench.search import NO_CONTEXT, PRESET_NAMES, Latency, SearchBench
from memory_core.bench.search_store import StoreComparison, scratch_location
from memory_core.model.config import Settings
from memory_core.model.errors import BucketNotFoundError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import S3_BUCKET, FakeEmbedder, run_cli
from tests.memory_core.store.object_storage_server import S3Server


def _bench(p95: float) -> SearchBench:
    lat = Latency(p95 / 2, p95, p95 * 1.5, p95 / 2)
    return SearchBench(
        n=100, edges=10, queries=1, dimension=16, write_seconds=1.0, index_seconds=2.0,
        vector_index_seconds=None, recall_at_10=None, query_embedding=lat,
        presets={name: lat for name in [*PRESET_NAMES, NO_CONTEXT]}, raw_hybrid=lat,
        hybrid_ratio=1.0, graph_hit_rate=0.5, hybrid_ok=True, full_ok=True, ratio_ok=True)


def test_the_comparison_shows_both_runs_per_preset() -> None:
    result = StoreComparison("s3://b/p", _bench(10.0), _bench(40.0))
    local = _bench(10.0).lines()
    lines = result.lines()
    assert lines[:len(local)] == local  # the local figures, with their targets
    lines = lines[len(local):]
    (hybrid,) = [line for line in lines if line.startswith("hybrid   ")]
    # local p50, p95, there p50, p95, and p95 there / here = 40 / 10
    assert hybrid.split()[1:] == ["5.0", "10.0", "20.0", "40.0", "4.0"]
    assert len([line for line in lines if line.endswith("   4.0")]) == len(PRESET_NAMES) + 2
    assert result.to_dict()["there"]["presets"]["full"]["p95_ms"] == 40.0


def test_the_scratch_store_is_removed_from_the_bucket(
        s3_uri: str, s3_env: S3Server, fake_embedder: FakeEmbedder) -> None:
    with scratch_location(s3_uri) as where:
        assert where.startswith(f"{s3_uri}/memlens-bench-")
        store = MemoryStore.open(where, embedder=fake_embedder,
                                 settings=Settings.from_env(store_uri=where))
        store.add([Memory.new("a benchmark memory", "fact")])
        assert s3_env.keys(S3_BUCKET, where.removeprefix(f"s3://{S3_BUCKET}/"))
    assert s3_env.keys(S3_BUCKET, s3_uri.removeprefix(f"s3://{S3_BUCKET}/")) == []


def test_a_local_scratch_folder_is_removed_too(tmp_path: Path,
                                               fake_embedder: FakeEmbedder) -> None:
    with scratch_location(str(tmp_path)) as where:
        MemoryStore.open(where, embedder=fake_embedder).add([Memory.new("a memory", "fact")])
        assert Path(where).is_dir()
    assert list(tmp_path.iterdir()) == []


def test_a_missing_bucket_fails_before_the_local_run(
        s3_env: S3Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    runs: list[Any] = []
    monkeypatch.setattr(search_store, "run_search_bench", lambda *a, **k: runs.append(a))
    with pytest.raises(BucketNotFoundError):
        search_store.run_store_comparison("s3://no-such-bucket/bench", 100, queries=1)
    code, _, err = run_cli(["bench", "search", "--n", "100", "--store",
                            "s3://no-such-bucket/bench"], capsys)
    assert code == 1 and "the bucket 'no-such-bucket' does not exist" in err
    assert runs == []
