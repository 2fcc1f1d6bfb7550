"""The map cache: a second `project` is read from disk; a write to the store or another
parameter misses; entries are pruned to `keep`; a damaged entry is recomputed, never an
error; no reader sees half an entry. UMAP is stood in (`stand_in`): the layout itself is
test_layout's business, and one test at the end runs the real thing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from memory_core.model.config import Settings
from memory_core.model.errors import MapError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.projection import MapParams, ProjectionCache, project
from memory_core.projection.cache import LAYOUT, META, REDUCER, cache_key, canonical_filter
from memory_core.store import MemoryStore
from tests.memory_core.projection.helpers import LinearMap

pytestmark = pytest.mark.usefixtures("stand_in")


def _frame(n: int = 3) -> pl.DataFrame:
    return pl.DataFrame({"id": [f"m{i}" for i in range(n)], "x": np.arange(n, dtype=float),
                         "y": -np.arange(n, dtype=float)})


def _key(**changes: object) -> str:
    fields: dict[str, object] = {"store_uri": "/data/store", "tenant": "default",
                                 "version": 7, "filter": None, "params": MapParams(),
                                 "model_id": "test/fake-bow"}
    return cache_key(**{**fields, **changes})  # type: ignore[arg-type]


def test_second_call_is_read_from_the_cache(topic_store: MemoryStore,
                                            cache: ProjectionCache) -> None:
    first = project(topic_store, cache=cache)
    second = project(topic_store, cache=cache)
    assert (first.from_cache, second.from_cache) == (False, True)
    assert second.key == first.key and second.frame.equals(first.frame)
    assert (second.fitted, second.skipped_unembedded) == (80, 0)
    # the cached model places vectors exactly where the computed one does
    vectors = np.eye(16, dtype=np.float32)[:2]
    assert np.array_equal(second.place(vectors), first.place(vectors))
    assert [p.name for p in cache.entries()] == [first.key]


def test_a_write_to_the_store_misses(topic_store: MemoryStore,
                                     cache: ProjectionCache) -> None:
    first = project(topic_store, cache=cache)
    topic_store.add([Memory.new("lancedb index recall after compaction", "lesson")])
    after = project(topic_store, cache=cache)
    assert not after.from_cache and after.key != first.key
    assert after.frame.height == first.frame.height + 1
    assert project(topic_store, cache=cache).from_cache


def test_other_params_or_filter_miss(topic_store: MemoryStore,
                                     cache: ProjectionCache) -> None:
    base = project(topic_store, cache=cache)
    seeded = project(topic_store, params=MapParams(seed=7), cache=cache)
    scoped = project(topic_store, Filter(project="react"), cache=cache)
    assert not seeded.from_cache and not scoped.from_cache
    assert len({base.key, seeded.key, scoped.key}) == 3
    assert set(scoped.frame["project"]) == {"react"} and scoped.frame.height == 40
    assert project(topic_store, Filter(project=["react"]), cache=cache).from_cache


def test_cache_false_neither_reads_nor_writes(topic_store: MemoryStore, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "models"))
    assert not project(topic_store, cache=False).from_cache
    assert not (tmp_path / "models" / "maps").exists()
    project(topic_store)  # cache=None: the default cache under MEMLENS_MODEL_CACHE
    assert len(ProjectionCache(tmp_path / "models" / "maps").entries()) == 1
    assert project(topic_store, cache=None).from_cache


def test_default_folder_is_maps_under_the_model_cache(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "m"))
    assert ProjectionCache.default().folder == tmp_path / "m" / "maps"
    assert Settings.from_env().map_cache == tmp_path / "m" / "maps"


def test_the_key_names_everything_that_changes_a_map() -> None:
    base = _key()
    assert len(base) == 64
    for change in ({"version": 8}, {"tenant": "other"}, {"store_uri": "/data/other"},
                   {"params": MapParams(min_dist=0.2)}, {"model_id": "other/model"},
                   {"filter": Filter(project="herd")}):
        assert _key(**change) != base, change
    assert _key(filter=Filter()) == base  # no filter is the default filter
    assert _key(filter=Filter(project=["b", "a", "a"])) == _key(filter=Filter(project=["a", "b"]))
    assert _key(filter=Filter(project="a")) == _key(filter=Filter(project=("a",)))
    assert _key(filter=Filter(status="active")) == base  # the default statuses, spelt out


def test_canonical_filter_is_the_predicate_with_sorted_values() -> None:
    assert canonical_filter(Filter(agent=["z", "a"]), "t") == (
        "tenant = 't' AND status = 'active' AND agent IN ('a', 'z')")


def test_pruning_keeps_the_most_recently_used(tmp_path: Path) -> None:
    cache = ProjectionCache(tmp_path, keep=3)
    a, b, c, d = (_key(version=v) for v in range(4))
    (tmp_path / "notes").mkdir()  # not an entry: never pruned
    for i, key in enumerate((a, b, c)):
        cache.put(key, _frame(), LinearMap(2, 0, 5), {})
        os.utime(tmp_path / key, (1000 + i, 1000 + i))  # a before b before c
    assert cache.get(a) is not None  # a is used: now the most recent
    cache.put(d, _frame(), LinearMap(2, 0, 5), {})
    assert {p.name for p in cache.entries()} == {a, c, d}
    assert cache.get(b) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([a, c, d, "notes"])


def test_keys_are_checked(tmp_path: Path) -> None:
    with pytest.raises(MapError, match="64 hex digits"):
        ProjectionCache(tmp_path).get("../../etc")


def test_project_prunes_to_keep(topic_store: MemoryStore, tmp_path: Path) -> None:
    cache = ProjectionCache(tmp_path / "maps", keep=2)
    for seed in range(4):
        project(topic_store, params=MapParams(seed=seed), cache=cache)
    assert len(cache.entries()) == 2
    assert project(topic_store, params=MapParams(seed=3), cache=cache).from_cache
    assert not project(topic_store, params=MapParams(seed=0), cache=cache).from_cache


@pytest.mark.parametrize("damage", ["truncate layout", "edit model", "drop meta",
                                    "meta not json", "foreign meta", "meta without counts"])
def test_a_damaged_entry_is_recomputed_and_rewritten(
        topic_store: MemoryStore, cache: ProjectionCache, damage: str,
        caplog: pytest.LogCaptureFixture) -> None:
    first = project(topic_store, cache=cache)
    entry = cache.folder / first.key
    if damage == "truncate layout":
        (entry / LAYOUT).write_bytes((entry / LAYOUT).read_bytes()[:40])
    elif damage == "edit model":
        blob = bytearray((entry / REDUCER).read_bytes())
        blob[-2] ^= 0xFF
        (entry / REDUCER).write_bytes(bytes(blob))
    elif damage == "drop meta":
        (entry / META).unlink()
    elif damage == "meta not json":
        (entry / META).write_text("{not json", encoding="utf-8")
    elif damage == "foreign meta":
        (entry / META).write_text('{"key": "another"}', encoding="utf-8")
    else:
        meta = json.loads((entry / META).read_text(encoding="utf-8"))
        del meta["fitted"]
        (entry / META).write_text(json.dumps(meta), encoding="utf-8")
    again = project(topic_store, cache=cache)
    assert not again.from_cache and again.frame.equals(first.frame)
    if damage != "drop meta":
        assert "ignoring the" in caplog.text and "map cache entry" in caplog.text
    healed = project(topic_store, cache=cache)
    assert healed.from_cache and healed.frame.equals(first.frame)
    assert [p.name for p in cache.folder.iterdir()] == [first.key]  # no leftovers


def test_a_lost_model_is_a_clear_error_when_placing(topic_store: MemoryStore,
                                                    cache: ProjectionCache) -> None:
    project(topic_store, cache=cache)
    cached = project(topic_store, cache=cache)
    (cache.folder / cached.key / REDUCER).unlink()  # pruned by another process, say
    with pytest.raises(MapError, match="fitted model of this map is gone from the cache"):
        cached.place(np.ones(16, dtype=np.float32))


def test_put_replaces_an_entry_in_one_rename(tmp_path: Path) -> None:
    cache, key = ProjectionCache(tmp_path), _key()
    cache.put(key, _frame(3), LinearMap(2, 0, 5), {"fitted": 3})
    cache.put(key, _frame(5), LinearMap(2, 0, 5), {"fitted": 5})
    hit = cache.get(key)
    assert hit is not None and hit.frame.height == 5 and hit.meta["fitted"] == 5
    assert isinstance(cache.load_reducer(hit.reducer_path), LinearMap)
    assert [p.name for p in tmp_path.iterdir()] == [key]


def test_keep_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(MapError, match="keeps at least 1 entry, got keep=0"):
        ProjectionCache(tmp_path, keep=0)
