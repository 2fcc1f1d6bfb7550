"""Waits on a store in object storage that end: an endpoint that stops answering becomes one
error within MEMLENS_STORAGE_TIMEOUT seconds, and Ctrl-C stops the wait.

LanceDB's synchronous API runs each call on its background event loop and waits for the
answer without a timeout (the loop's `run`). Two things go wrong there when
an endpoint stalls (its server stopped, not dead: the kernel still accepts connections and
nothing answers). object_store times each request out and retries it for minutes, and Lance
repeats the retried requests, so a call waits more than 7 minutes whatever `timeout` the
storage options set. And Ctrl-C is not delivered: a wait without a timeout in the main
thread wakes only for a signal that lands on that thread, and LanceDB's runtime threads
usually take it.

`watch(uri, endpoint, seconds)` (`object_storage.storage_options` calls it for every store
on object storage) replaces that loop's `run`, once per process, with `_run`
(`lance_private.replace_run`). It waits in slices of
`SLICE` seconds, so a pending Ctrl-C is raised between two, and while a call lasts it asks
the watched endpoints for a sign of life: a bare HEAD request, where any answer (a 403 too)
counts. A long call to a live endpoint (a large import, a compaction) goes on. When no
watched endpoint has answered for its bound, the call is cancelled and
`ObjectStorageStalledError` raised. Without a watched endpoint (local stores only) `_run`
just waits in slices. `forget()` ends the watches (the CLI calls it when a command ends).

After a stall, or once Ctrl-C has interrupted a wait, the calls that follow (a write's
roll-back, say) get `HURRIED` seconds instead: the user wants out, and an endpoint that just
went silent for the whole bound is not waited on for it again unless it answers a probe.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import math
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from memory_core.model.errors import ObjectStorageConfigError, ObjectStorageStalledError
from memory_core.model.untrusted import shown
from memory_core.store import lance_private

T = TypeVar("T")
TIMEOUT_VARIABLE = "MEMLENS_STORAGE_TIMEOUT"
#: Seconds an endpoint may go without answering before a call to it is given up.
DEFAULT_SECONDS = 30.0
#: Seconds between two looks at a pending call (how soon Ctrl-C and a stall are noticed).
SLICE = 0.1
#: The bound after a stall (until the endpoint answers again) or an interrupt.
HURRIED = 1.0


@dataclass(frozen=True)
class Watch:
    """A store on object storage: its URI, the endpoint to probe, the bound in seconds."""

    uri: str
    endpoint: str
    seconds: float


_watches: dict[str, Watch] = {}
#: URIs whose endpoint went silent for a whole bound and has not answered since.
_silent: set[str] = set()
_interrupted = False
_lock = threading.Lock()


def timeout_of(env: Mapping[str, str]) -> float:
    """The bound MEMLENS_STORAGE_TIMEOUT sets in `env` (seconds, `30` or `30s`; default 30).

    >>> timeout_of({"MEMLENS_STORAGE_TIMEOUT": "5s"})
    5.0
    """
    text = env.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_SECONDS
    try:
        seconds = float(text.lower().removesuffix("s"))
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ObjectStorageConfigError(
            f"{TIMEOUT_VARIABLE} is {shown(text)}; set it to a number of seconds above 0, "
            f"such as {DEFAULT_SECONDS:g} (the default), or unset it")
    return seconds


def watch(uri: str, endpoint: str | None, seconds: float) -> None:
    """Bound LanceDB's waits on the store at `uri` to `seconds` of silence from `endpoint`
    (None: no endpoint to probe, so the waits are only interruptible)."""
    with _lock:
        if endpoint:
            _watches[uri] = Watch(uri, endpoint, seconds)
        _install()


def forget() -> None:
    """End every watch (LanceDB's waits stay interruptible)."""
    global _interrupted
    with _lock:
        _watches.clear()
        _silent.clear()
        _interrupted = False


def only_uri() -> str | None:
    """The URI of the one store on object storage being watched (None: none, or several)."""
    with _lock:
        return next(iter(_watches)) if len(_watches) == 1 else None


def _install() -> None:
    lance_private.replace_run(_run)


def bounded(call: Callable[[], T]) -> T:
    """`call()` within the watched bounds: for calls into Lance itself (pylance), which do
    not go through LanceDB's loop. Run in a thread of its own while a store on object storage
    is watched, else directly (a local store pays no thread hop)."""
    with _lock:
        watched = bool(_watches)
    if not watched:
        return call()
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            future.set_exception(exc)

    threading.Thread(target=run, daemon=True, name="memlens-store-call").start()
    return cast(T, wait(future))


def _run(coroutine: Any) -> Any:
    """LanceDB's loop's `run`, waiting in slices and within the watched bounds."""
    future = asyncio.run_coroutine_threadsafe(coroutine, lance_private.event_loop())
    try:
        return wait(future)
    except BaseException:
        future.cancel()
        raise


def wait(future: concurrent.futures.Future[Any]) -> Any:
    """The result of `future`, waited for in slices (Ctrl-C is raised between two); raises
    `ObjectStorageStalledError` when no watched endpoint has answered within its bound."""
    global _interrupted
    started = time.monotonic()
    try:
        if concurrent.futures.wait([future], timeout=SLICE).done:
            return future.result()  # most calls: no watch to set up
        with _lock:
            lives = [_Liveness(w, heard=started, bound=_bound(w)) for w in _watches.values()]
        while not concurrent.futures.wait([future], timeout=SLICE).done:
            now = time.monotonic()
            for life in lives:
                life.update(now)
            if lives and all(life.stalled(now) for life in lives):
                with _lock:
                    _silent.update(life.watch.uri for life in lives)
                raise _stalled(lives[0], interrupted=_interrupted)
    except KeyboardInterrupt:
        with _lock:
            _interrupted = _interrupted or bool(_watches)
        raise
    return future.result()


def _bound(watched: Watch) -> float:
    hurried = _interrupted or watched.uri in _silent
    return min(watched.seconds, HURRIED) if hurried else watched.seconds


def _stalled(life: _Liveness, *, interrupted: bool) -> ObjectStorageStalledError:
    watched = life.watch
    why = f" ({life.failure})" if life.failure else ""
    check = "check the endpoint (AWS_ENDPOINT_URL) and that the service is running and reachable"
    if interrupted:
        return ObjectStorageStalledError(
            f"interrupted while the object store at {shown(watched.endpoint)} gave no "
            f"answer{why} for {shown(watched.uri)}; {check}")
    return ObjectStorageStalledError(
        f"the object store at {shown(watched.endpoint)} did not answer within "
        f"{watched.seconds:g} s{why} for {shown(watched.uri)}; {check}, or raise "
        f"{TIMEOUT_VARIABLE} (seconds) if it is only slow")


@dataclass
class _Liveness:
    """The last sign of life of one watched endpoint during one call."""

    watch: Watch
    heard: float
    bound: float
    probe: _Probe | None = None
    probed: float = -math.inf
    failure: str = ""

    def update(self, now: float) -> None:
        if self.probe is not None and self.probe.done.is_set():
            if self.probe.answered is not None:
                self.heard = max(self.heard, self.probe.answered)
                with _lock:
                    _silent.discard(self.watch.uri)
            self.failure = self.probe.failure
            self.probe = None
        every = self.bound / 3
        if self.probe is None and min(now - self.heard, now - self.probed) >= every:
            self.probe = _Probe(self.watch.endpoint, timeout=self.bound)
            self.probed = now

    def stalled(self, now: float) -> bool:
        return now - self.heard >= self.bound


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is an answer: it is not followed


_OPENER = urllib.request.build_opener(_NoRedirect)


class _Probe:
    """One HEAD request to an endpoint, in a thread: `answered` is when any answer came."""

    def __init__(self, url: str, *, timeout: float) -> None:
        self.answered: float | None = None
        self.failure = ""
        self.done = threading.Event()
        threading.Thread(target=self._ask, args=(url, timeout), daemon=True,
                         name="memlens-store-probe").start()

    def _ask(self, url: str, timeout: float) -> None:
        try:
            _OPENER.open(urllib.request.Request(url, method="HEAD"), timeout=timeout).close()
            self.answered = time.monotonic()
        except urllib.error.HTTPError as exc:  # 403, 404, 3xx: the service answered
            exc.close()
            self.answered = time.monotonic()
        except ConnectionRefusedError:
            self.failure = "connection refused"
        except urllib.error.URLError as exc:
            refused = isinstance(exc.reason, ConnectionRefusedError)
            self.failure = "connection refused" if refused else ""
        except (OSError, ValueError, http.client.HTTPException):
            pass  # no answer (timed out, closed without one, malformed)
        finally:
            self.done.set()
