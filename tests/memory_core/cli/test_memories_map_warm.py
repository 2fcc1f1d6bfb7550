"""`memlens init` and `memlens serve` start compiling the map's engine in the background on a
machine that has not compiled it (the Map page then says "compiling", not nothing), and
start nothing once it is compiled."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from memory_core.projection import engine, map_engine_state, warm
from tests.conftest import run_cli


@pytest.fixture
def new_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Nothing compiled (numba's cache empty, this process without the engine); the warm
    processes the commands start, recorded instead of run."""
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # written pending: no model needed
    monkeypatch.setattr(engine, "_loaded", threading.Event())
    started: list[list[str]] = []

    def popen(args: list[str], **kwargs: Any) -> None:
        started.append(args)

    monkeypatch.setattr(warm.subprocess, "Popen", popen)
    return started


def test_init_starts_the_warm_process_once(tmp_path: Path, new_machine: list[list[str]],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    assert run_cli(["--store", store, "add", "a memory to keep"], capsys)[0] == 0
    code, _, err = run_cli(["--store", store, "init"], capsys)  # nothing to seed
    assert code == 0, err
    cache = tmp_path / "cache"
    assert new_machine == [[sys.executable, "-m", "memory_core.projection.warm", str(cache)]]
    assert map_engine_state(cache).state == "compiling"
    run_cli(["--store", store, "init"], capsys)
    assert len(new_machine) == 1  # it is already compiling


def test_serve_starts_it_and_not_once_compiled(tmp_path: Path, new_machine: list[list[str]],
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.cli.memories as memories

    monkeypatch.setattr(memories.subprocess, "call", lambda args, **_: 0)
    store = str(tmp_path / "s")
    assert run_cli(["--store", store, "serve", "--no-seed"], capsys)[0] == 0
    assert [args[2:] for args in new_machine] == [["memory_core.projection.warm",
                                                   str(tmp_path / "cache")]]
    engine.marker_path(tmp_path / "cache").write_text("{}", encoding="utf-8")
    (engine.numba_cache_dir(tmp_path / "cache") / engine.STARTED).unlink()
    assert run_cli(["--store", store, "serve", "--no-seed"], capsys)[0] == 0
    assert len(new_machine) == 1
