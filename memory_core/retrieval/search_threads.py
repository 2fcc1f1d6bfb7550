"""The threads a search runs LanceDB work on beside its caller's thread, or none.

LanceDB releases the GIL while it queries, so BM25 runs on one of these threads while the
caller's thread embeds the query and runs the vector search (`candidates.py`). The session
neighbours' rows are read on the caller's thread: that read already decodes on both cores,
so moving it here gains nothing. With the store's speed-up off (`MEMLENS_ACCEL=0`,
`MemoryStore.open(accel=False)`) the same work runs serially on the caller's thread, each
call as it is submitted, and the threads are never made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


class _OnCallersThread(Executor):
    """Runs each call when it is submitted, on the submitting thread; its future is done.

    An exception is kept in the future, as the pool keeps it, so callers read failures at
    `.result()` either way."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - surfaced by future.result()
            future.set_exception(exc)
        return future


_SERIAL = _OnCallersThread()


def search_threads(*, enabled: bool = True) -> Executor:
    """The threads, made once per process; with `enabled=False`, the caller's own thread.

    Work submitted here never waits on other work submitted here, so searches on many
    threads share them without deadlock."""
    if not enabled:
        return _SERIAL
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memlens-search")
        return _POOL
