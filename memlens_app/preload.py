"""`start`: import slow libraries in a daemon thread ahead of need, once per process, and
`wait_for` one of them. `memlens serve`'s web server process (`memlens_app/server.py`)
starts it before Streamlit boots, so that a visitor's first page does not wait for LanceDB
to import (most of it pydantic building its client's schemas), nor the Map page for
scikit-learn's HDBSCAN and text vectoriser.

Two threads importing at once can still meet a cycle between packages (pandas and pyarrow
import each other): Python then hands one of them the other's half-initialised module, and
`memlens serve` once failed to start with "partially initialized module 'pandas'". So the
packages of such cycles are imported first, in the calling thread (`FIRST`), and the app's
script waits for the whole preload (`wait_for_preload`) before it imports anything of its
own: only Streamlit's server, which imports none of the preloaded packages, runs beside it.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Sequence

#: Imported in the calling thread before the preload starts: packages that import each
#: other, which two threads must not import at once.
FIRST = ("numpy", "pyarrow", "pandas")
#: What `memlens serve` preloads in the background, in order.
SERVER_MODULES = ("lancedb", "sklearn.cluster", "sklearn.feature_extraction.text")

log = logging.getLogger(__name__)
_lock = threading.Lock()
_imported: dict[str, threading.Event] = {}


def _import_all(names: Sequence[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:  # whoever uses it says what is missing
            log.info("could not preload %s: %s", name, exc)
        finally:
            _imported[name].set()


def start(names: Sequence[str] = SERVER_MODULES, first: Sequence[str] = FIRST
          ) -> threading.Thread | None:
    """Import `first` here, then `names` in order in a daemon thread; the thread, or None
    when every one of them is being or has been preloaded in this process already."""
    for name in first:
        importlib.import_module(name)
    with _lock:
        fresh = [name for name in names if name not in _imported]
        for name in fresh:
            _imported[name] = threading.Event()
    if not fresh:
        return None
    thread = threading.Thread(target=_import_all, args=(fresh,), name="memlens-preload",
                              daemon=True)
    thread.start()
    return thread


def wait_for_preload(timeout: float = 120.0) -> bool:
    """Wait until everything preloaded in this process is in (True; also when nothing is
    preloaded), or `timeout` seconds have passed (False)."""
    return all(wait_for(name, timeout) for name in list(_imported))


def wait_for(name: str, timeout: float | None = 120.0) -> bool:
    """Wait until the preload has imported `name` (True), or return at once when no
    preload in this process covers it (False)."""
    event = _imported.get(name)
    if event is None:
        return False
    return event.wait(timeout)
