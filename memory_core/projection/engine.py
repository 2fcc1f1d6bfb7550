"""The map's engine, umap-learn, loaded so that numba compiles it once per machine.

umap-learn and pynndescent are numba code: the first process on a machine compiles them
(about a minute on two cores) unless numba finds the machine code on disk. `use_cache_dir`
points numba's on-disk cache (`NUMBA_CACHE_DIR`) at memlens' cache folder before numba
is first imported, and `import_umap` has numba keep umap-learn's functions there too (they
are not declared `cache=True`, pynndescent's are). `prepare` compiles once under a lock
file, so of two processes one compiles and the other waits and then loads the code, and
leaves a marker naming the versions compiled; `map_engine_state` reads marker and lock
("ready", "compiling", "cold") for the Map page. `warm.py` runs `prepare` in a background
process after `memlens init` or `serve`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import logging
import os
import pickle
import platform
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO, Literal

from memory_core.model.errors import MapError

try:
    import fcntl
except ImportError:  # not POSIX: no lock, two processes may compile at once (only slower)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

#: The folder under memlens' cache folder numba keeps compiled code in.
NUMBA_FOLDER = "numba"
LOCK = "map-engine.lock"
#: Written by `warm.start_map_warm` when it starts the warm process.
STARTED = "map-engine.started"
#: Seconds a started warm process counts as compiling before it holds the lock (Python and
#: memlens import first).
STARTING_S = 30.0
#: About how long a machine's first compile takes (two cores): the Map page's progress.
EXPECTED_COMPILE_S = 60.0
#: Seconds between two tries of the compile lock while another process holds it.
POLL_S = 0.25
#: umap-learn's modules whose numba functions numba is told to keep on disk.
UMAP_MODULES = ("umap.distances", "umap.utils", "umap.spectral", "umap.sparse",
                "umap.layouts", "umap.umap_")
#: The packages whose versions the compiled code belongs to (an upgrade compiles again).
PACKAGES = ("umap-learn", "pynndescent", "numba", "llvmlite")

State = Literal["ready", "compiling", "cold"]
Waiting = Callable[[float], None]

_loaded = threading.Event()
_load_lock = threading.Lock()


@functools.cache
def versions() -> dict[str, str]:
    """The installed versions of `PACKAGES` (absent ones as "missing"), Python's and the
    machine's: what the compiled code and map layouts depend on."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "missing"
    out["python"] = platform.python_version()
    out["machine"] = platform.machine()
    return out


def algorithm() -> str:
    """Names the map's algorithm in cache keys: umap-learn and its version (a new version
    may lay the same vectors out differently)."""
    return f"umap-learn-{versions()['umap-learn']}"


def default_cache_dir() -> Path:
    """memlens' cache folder (MEMLENS_MODEL_CACHE, `Settings.model_cache`), read now."""
    from memory_core.model.config import Settings

    return Settings.from_env().model_cache


def numba_cache_dir(cache_dir: Path | str | None = None) -> Path:
    """Where numba keeps compiled code: NUMBA_CACHE_DIR when set, else `numba` under
    `cache_dir` (default: memlens' cache folder)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    return Path(cache_dir or default_cache_dir()).expanduser() / NUMBA_FOLDER


def marker_path(cache_dir: Path | str | None = None) -> Path:
    """The file saying this machine's numba cache holds the engine for these versions."""
    digest = hashlib.sha256(json.dumps(versions(), sort_keys=True).encode()).hexdigest()
    return numba_cache_dir(cache_dir) / f"map-engine-{digest[:16]}.ready"


def use_cache_dir(cache_dir: Path | str | None = None) -> Path:
    """Point numba's on-disk cache at `numba_cache_dir(cache_dir)` for this process (a
    NUMBA_CACHE_DIR already set wins) and return it; effective until numba is imported, or
    until umap-learn is, if numba already was."""
    folder = numba_cache_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None and "umap" not in sys.modules:
        numba.config.CACHE_DIR = str(folder)
    return folder


def _keep_compiled(module: ModuleType) -> None:
    """Have numba store what it compiles of `module`'s functions on disk. Numba's
    dispatchers have `enable_caching` (what `cache=True` calls); if a numba release drops
    it, those functions compile in every process again, which is slower, not wrong."""
    from numba.core.registry import CPUDispatcher

    for value in vars(module).values():
        cache = getattr(value, "_cache", None)
        if isinstance(value, CPUDispatcher) and type(cache).__name__ == "NullCache":
            try:
                value.enable_caching()
            except (AttributeError, TypeError, RuntimeError) as exc:
                log.info("numba compiles %s in every process (%s)", module.__name__, exc)
                return


def import_umap(cache_dir: Path | str | None = None) -> ModuleType:
    """umap-learn, imported with numba's cache in memlens' cache folder (`use_cache_dir`)
    and its functions kept there. Importing it is what compiles pynndescent on a cold
    machine; `prepare` compiles the rest."""
    if "umap" not in sys.modules:
        use_cache_dir(cache_dir)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            umap = importlib.import_module("umap")
            for name in UMAP_MODULES:
                _keep_compiled(importlib.import_module(name))
    except ImportError as exc:
        raise MapError(f"the map needs umap-learn, which does not import ({exc}); install "
                       f"it with `pip install umap-learn`") from exc
    return umap


def unpickle(handle: BinaryIO) -> Any:
    """A pickled fitted model read from `handle`: numba's cache pointed at memlens' cache
    folder before the pickle imports umap-learn, which then keeps its compiled code there
    (a model that is not umap-learn's, like the tests' stand-in, imports nothing)."""
    if "umap" not in sys.modules:
        use_cache_dir()
    model = pickle.load(handle)
    if "umap" in sys.modules:
        import_umap()
    return model


@dataclass(frozen=True)
class EngineState:
    """Whether a map can be fitted without compiling: `state` "ready" (compiled code on
    disk, or in this process), "compiling" (a process holds the compile lock; `since` is
    when it took it, epoch seconds) or "cold" (nothing compiled, nobody compiling)."""

    state: State
    since: float | None = None

    def elapsed(self, now: float | None = None) -> float:
        """Seconds the compile has run (0 unless compiling)."""
        if self.since is None:
            return 0.0
        return max(0.0, (now if now is not None else time.time()) - self.since)


@contextmanager
def _locked(path: Path, *, exclusive: bool) -> Iterator[bool]:
    """Try the lock file at `path` without waiting: yields whether it was taken (always
    True without fcntl)."""
    if fcntl is None:
        yield True
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as handle:
        try:
            fcntl.flock(handle, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            if exclusive:
                handle.seek(0)
                handle.truncate()
                handle.write(json.dumps({"pid": os.getpid(), "since": time.time()}))
                handle.flush()
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _holder_since(path: Path) -> float | None:
    try:
        return float(json.loads(path.read_text(encoding="utf-8"))["since"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def mark_started(cache_dir: Path | str | None = None) -> None:
    """Note that a warm process is starting (`map_engine_state` counts it as compiling for
    `STARTING_S`, until it holds the lock)."""
    path = numba_cache_dir(cache_dir) / STARTED
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": os.getpid(), "since": time.time()}), encoding="utf-8")


def map_engine_state(cache_dir: Path | str | None = None) -> EngineState:
    """The engine's state on this machine for memlens' cache folder `cache_dir` (default
    MEMLENS_MODEL_CACHE's): see `EngineState`."""
    if _loaded.is_set() or marker_path(cache_dir).exists():
        return EngineState("ready")
    folder = numba_cache_dir(cache_dir)
    lock = folder / LOCK
    if lock.exists():
        with _locked(lock, exclusive=False) as free:
            held = not free
        if held:
            return EngineState("compiling", _holder_since(lock))
    started = _holder_since(folder / STARTED)
    if started is not None and 0 <= time.time() - started < STARTING_S:
        return EngineState("compiling", started)
    return EngineState("cold")


def prepare(kernels: Callable[[], None], cache_dir: Path | str | None = None,
            waiting: Waiting | None = None) -> None:
    """Have umap-learn compiled and loaded in this process: loaded from numba's cache when
    this machine's marker says it is there, else compiled under the lock by running
    `kernels` (a small fit that runs every kernel a map needs; or, when another process holds
    the lock, loaded once that one is done), the marker then written. `waiting(seconds)` is
    called every `POLL_S` while the lock is held elsewhere."""
    with _load_lock:
        if _loaded.is_set():
            return
        marker = marker_path(cache_dir)
        if marker.exists():
            import_umap(cache_dir)
            _loaded.set()
            return
        lock = numba_cache_dir(cache_dir) / LOCK
        began = time.monotonic()
        while True:
            with _locked(lock, exclusive=True) as mine:
                if mine:
                    import_umap(cache_dir)
                    kernels()
                    marker.write_text(json.dumps(versions(), sort_keys=True),
                                      encoding="utf-8")
                    _loaded.set()
                    return
            if waiting is not None:
                waiting(time.monotonic() - began)
            time.sleep(POLL_S)


class Preparation:
    """`prepare` running in a daemon thread (numba compiles on one core while numpy finds
    the neighbours on the others); `wait` re-raises what it raised."""

    def __init__(self, kernels: Callable[[], None], cache_dir: Path | str | None = None
                 ) -> None:
        self._error: BaseException | None = None
        self._kernels = kernels
        self._thread = threading.Thread(target=self._run, args=(cache_dir,),
                                        name="memlens-map-engine", daemon=True)
        self._thread.start()

    def _run(self, cache_dir: Path | str | None) -> None:
        try:
            prepare(self._kernels, cache_dir)
        except BaseException as exc:  # handed to whoever waits
            self._error = exc

    def wait(self, waiting: Waiting | None = None) -> None:
        """Return once the engine is loaded, calling `waiting(seconds)` every `POLL_S`."""
        began = time.monotonic()
        while self._thread.is_alive():
            self._thread.join(POLL_S)
            if waiting is not None and self._thread.is_alive():
                waiting(time.monotonic() - began)
        if self._error is not None:
            raise self._error


def prepare_in_background(kernels: Callable[[], None], cache_dir: Path | str | None = None
                          ) -> Preparation | None:
    """Start `prepare` in a thread, or None when this process has the engine loaded."""
    return None if _loaded.is_set() else Preparation(kernels, cache_dir)
