"""Getting UMAP ready: `prepare` in a background thread, once per process, and one process
of the machine compiling at a time (the others wait, then load what it stored)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from memory_core.projection import reducer
from memory_core.projection.neighbours import ExactCosineIndex
from memory_core.projection.params import MapParams


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[MapParams]:
    """A process that has not prepared UMAP; `prepare` records its calls instead."""
    calls: list[MapParams] = []
    monkeypatch.setattr(reducer, "_warm", threading.Event())
    monkeypatch.setattr(reducer, "_preparation", None)
    monkeypatch.setattr(reducer, "prepare", calls.append)
    monkeypatch.setattr(reducer, "compile_lock_path", lambda: tmp_path / "compile.lock")
    return calls


def test_prepare_runs_once_per_process(fresh: list[MapParams]) -> None:
    first = reducer.prepare_in_background(MapParams(seed=3))
    first.wait()
    assert reducer.prepare_in_background() is first
    assert fresh == [MapParams(seed=3)]


def test_a_failed_preparation_is_raised_to_the_waiter_and_tried_again(
        monkeypatch: pytest.MonkeyPatch, fresh: list[MapParams]) -> None:
    def broken(params: MapParams) -> None:
        raise ImportError("No module named 'umap'")

    monkeypatch.setattr(reducer, "prepare", broken)
    failed = reducer.prepare_in_background()
    with pytest.raises(ImportError, match="umap"):
        failed.wait()
    monkeypatch.setattr(reducer, "prepare", fresh.append)
    again = reducer.prepare_in_background()
    again.wait()
    assert again is not failed and len(fresh) == 1


@pytest.mark.skipif(reducer.fcntl is None, reason="no fcntl: compiles are not serialised")
def test_a_second_process_waits_for_the_one_compiling(fresh: list[MapParams],
                                                      tmp_path: Path) -> None:
    lock = tmp_path / "compile.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, sys\n"
         f"handle = open({str(lock)!r}, 'a')\n"
         "fcntl.flock(handle, fcntl.LOCK_EX)\n"
         "print('locked', flush=True)\n"
         "sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        entered = threading.Event()

        def enter() -> None:
            with reducer._compile_lock():
                entered.set()

        waiter = threading.Thread(target=enter, daemon=True)
        waiter.start()
        assert not entered.wait(0.5)  # the other process holds it
        assert holder.stdin is not None
        holder.stdin.close()  # it exits; the OS drops its lock
        holder.wait(timeout=30)
        assert entered.wait(30)
    finally:
        holder.kill()
        holder.wait()


def test_fit_uses_the_neighbours_it_is_given() -> None:
    """`project` finds the neighbours while UMAP compiles and hands them to `fit`."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((40, 8)).astype(np.float32)
    known = reducer.exact_neighbours(vectors, 5)
    assert known is not None
    indices, distances = known
    assert indices.shape == (40, 5) and (indices[:, 0] == np.arange(40)).all()
    expected = ExactCosineIndex(vectors).query(vectors, 5)
    assert (indices == expected[0]).all() and np.allclose(distances, expected[1])


def test_beyond_the_exact_limit_umap_finds_the_neighbours(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(reducer, "EXACT_LIMIT", 10)
    assert reducer.exact_neighbours(np.ones((11, 4), dtype=np.float32), 3) is None
    assert reducer.exact_neighbours(np.eye(10, 4, dtype=np.float32) + 1e-3, 3) is not None
