"""The threads a search runs LanceDB work on beside its caller's thread.

LanceDB releases the GIL while it queries, so BM25 runs on one of these threads while the
caller's thread embeds the query and runs the vector search (`candidates.py`). Reading the
session neighbours' rows here while the caller analyses the candidates' texts was measured
and not kept: 62.4 ms a search against 61.7 (the read decodes on both cores already).
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
