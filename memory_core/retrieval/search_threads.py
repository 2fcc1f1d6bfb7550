"""The threads a search runs LanceDB work on beside its caller's thread.

LanceDB releases the GIL while it queries, so BM25 runs on one of these threads while the
caller's thread embeds the query and runs the vector search (`candidates.py`). The session
neighbours' rows are read on the caller's thread: that read already decodes on both cores,
so moving it here gains nothing.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def search_threads() -> ThreadPoolExecutor:
    """The threads, made once per process. Work submitted here never waits on other work
    submitted here, so searches on many threads share them without deadlock."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memlens-search")
        return _POOL
