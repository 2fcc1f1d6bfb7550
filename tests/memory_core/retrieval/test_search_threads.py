"""The search threads (`retrieval/search_threads.py`): a pool of two made once, or, with the
store's speed-up off, the caller's own thread, each call run as it is submitted."""

from __future__ import annotations

import threading

import pytest

from memory_core.retrieval import search_threads as threads_module
from memory_core.retrieval.search_threads import search_threads


def _names() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("memlens-search")}


def test_off_runs_each_call_on_the_callers_thread_as_it_is_submitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads_module, "_POOL", None)
    before = _names()
    ran: list[str] = []

    def double(x: int) -> int:
        ran.append(threading.current_thread().name)
        return x * 2

    job = search_threads(enabled=False).submit(double, 21)
    assert ran == [threading.current_thread().name]  # already run, here
    assert job.done() and job.result() == 42
    assert threads_module._POOL is None and _names() == before  # no pool was made


def test_off_keeps_a_failure_for_result_as_the_pool_does() -> None:
    def fails() -> None:
        raise ValueError("bad row")

    for enabled in (True, False):
        job = search_threads(enabled=enabled).submit(fails)
        with pytest.raises(ValueError, match="bad row"):
            job.result()


def test_on_runs_on_one_pool_of_two_named_threads() -> None:
    pool = search_threads()
    assert search_threads(enabled=True) is pool
    name = pool.submit(lambda: threading.current_thread().name).result()
    assert name.startswith("memlens-search")
