"""`start`: import slow libraries in a daemon thread ahead of need, once per process, and
`wait_for` one of them. `memlens serve`'s web server process (`app_server.py`, beside
app.py) starts it before Streamlit boots, so that a visitor's first page does not import
LanceDB (3.6-4.8 s here, most of it pydantic building its client's schemas) and the Map
page does not import scikit-learn's HDBSCAN and text vectoriser (2.7 s) while they wait.

A module the preload is importing when another thread needs it is waited for (Python's
import lock), never imported twice.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Sequence

#: What `memlens serve` preloads, in order: what every page needs first.
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


def start(names: Sequence[str] = SERVER_MODULES) -> threading.Thread | None:
    """Import `names` in order in a daemon thread; the thread, or None when every one of
    them is being or has been preloaded in this process already."""
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


def wait_for(name: str, timeout: float | None = 120.0) -> bool:
    """Wait until the preload has imported `name` (True), or return at once when no
    preload in this process covers it (False)."""
    event = _imported.get(name)
    if event is None:
        return False
    return event.wait(timeout)
