"""The map engine's state on a machine, as the Map page reads it: cold until compiled,
compiling while a process holds the compile lock (since when), ready once the marker for
these versions is written; numba's cache in memlens' cache folder unless NUMBA_CACHE_DIR
says otherwise; a cached map's model loaded without importing umap-learn when it is not
umap-learn's."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from memory_core.projection import engine, map_engine_state
from memory_core.projection.reducer import compile_kernels


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A machine where nothing is compiled: memlens' cache folder in tmp_path, numba's
    under it, and this process not holding the engine."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(engine, "_loaded", threading.Event())
    return tmp_path / "cache"


def test_numba_keeps_its_code_in_memlens_cache_folder(fresh: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert engine.numba_cache_dir(fresh) == fresh / "numba"
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(fresh))
    assert engine.numba_cache_dir() == fresh / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(fresh / "mine"))
    assert engine.numba_cache_dir(fresh) == fresh / "mine"  # the user's choice wins


def test_cold_then_compiling_while_the_lock_is_held_then_ready(fresh: Path) -> None:
    assert map_engine_state(fresh) == engine.EngineState("cold")
    lock = engine.numba_cache_dir(fresh) / engine.LOCK
    before = time.time()
    with engine._locked(lock, exclusive=True) as mine:
        assert mine
        state = map_engine_state(fresh)
        assert state.state == "compiling"
        assert state.since is not None and before <= state.since <= time.time()
        assert 0 <= state.elapsed() < 60
    assert map_engine_state(fresh).state == "cold"  # its holder died before finishing
    engine.marker_path(fresh).write_text("{}", encoding="utf-8")
    assert map_engine_state(fresh) == engine.EngineState("ready")


def test_a_started_warm_process_counts_as_compiling_until_it_would_hold_the_lock(
        fresh: Path) -> None:
    engine.mark_started(fresh)
    assert map_engine_state(fresh).state == "compiling"
    stamp = engine.numba_cache_dir(fresh) / engine.STARTED
    stamp.write_text(json.dumps({"since": time.time() - engine.STARTING_S - 1}))
    assert map_engine_state(fresh).state == "cold"


def test_the_marker_names_the_versions_it_was_compiled_for(fresh: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    engine.marker_path(fresh).parent.mkdir(parents=True)
    engine.marker_path(fresh).write_text("{}", encoding="utf-8")
    assert map_engine_state(fresh).state == "ready"
    upgraded = {**engine.versions(), "numba": "99.0"}
    monkeypatch.setattr(engine, "versions", lambda: upgraded)
    assert map_engine_state(fresh).state == "cold"  # an upgrade compiles again
    assert engine.algorithm() == f"umap-learn-{upgraded['umap-learn']}"


def test_a_process_that_has_the_engine_is_ready(fresh: Path) -> None:
    engine._loaded.set()
    assert map_engine_state(fresh).state == "ready"
    assert engine.prepare_in_background(compile_kernels, fresh) is None


@pytest.fixture
def fresh_but_imported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """`fresh`, with umap-learn imported before from the test run's numba cache (what is
    tested is the waiting, not a compile)."""
    engine.import_umap()
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(engine, "_loaded", threading.Event())
    return tmp_path / "cache"


@pytest.mark.slow
def test_waiting_for_another_compiler_reports_the_seconds(fresh_but_imported: Path) -> None:
    """`prepare` waits while another process compiles, then loads what it left."""
    fresh = fresh_but_imported
    lock = engine.numba_cache_dir(fresh) / engine.LOCK
    waited: list[float] = []
    with engine._locked(lock, exclusive=True):
        preparing = engine.Preparation(compile_kernels, fresh)
        time.sleep(3 * engine.POLL_S)
        assert not engine._loaded.is_set()
        engine.marker_path(fresh).write_text("{}", encoding="utf-8")  # the other one is done
    preparing.wait(waited.append)
    assert waited == sorted(waited)
    assert engine._loaded.is_set()
    assert engine.marker_path(fresh).exists()


def test_numba_still_offers_what_keeps_umaps_code_on_disk() -> None:
    """umap-learn marks few of its functions `cache=True`; memlens switches caching on for
    the rest through numba's dispatcher (`CPUDispatcher.enable_caching`, its `_cache`), which
    numba does not document. If an upgrade removes them, every process compiles the map
    engine again (a minute on two cores): this test says so before a user finds out."""
    import importlib

    from numba.core.registry import CPUDispatcher

    assert hasattr(CPUDispatcher, "enable_caching"), (
        "numba no longer has CPUDispatcher.enable_caching: memory_core/projection/engine.py "
        "_keep_compiled must find another way to cache umap-learn's compiled functions")
    engine.import_umap()
    uncached = [f"{name}.{attr}" for name in engine.UMAP_MODULES
                for attr, value in vars(importlib.import_module(name)).items()
                if isinstance(value, CPUDispatcher)
                and type(getattr(value, "_cache", None)).__name__ == "NullCache"]
    assert uncached == [], (
        f"these umap-learn functions would compile in every process: {uncached[:5]}; "
        "numba's dispatcher changed under memory_core/projection/engine.py _keep_compiled")
