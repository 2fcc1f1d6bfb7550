"""LanceDB's waits on a store in object storage: bounded when the endpoint goes silent, not
when it answers, and Ctrl-C delivered (`stall_watch`). The endpoints here are sockets on
127.0.0.1: one that accepts connections and never answers (a stalled server), one that
answers every request with 403."""

from __future__ import annotations

import asyncio
import http.server
import signal
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from lancedb.background_loop import LOOP

from memory_core.model.errors import ObjectStorageConfigError, ObjectStorageStalledError
from memory_core.store import stall_watch

URI = "s3://bucket/memories"


@pytest.fixture
def silent() -> Iterator[str]:
    """An endpoint that stalls: the kernel completes the connection, nothing answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


class _Refusing(http.server.BaseHTTPRequestHandler):
    def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(403)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def answering() -> Iterator[tuple[str, list[float]]]:
    """An endpoint that answers (403, as S3 answers an unsigned request); the times it did."""
    heard: list[float] = []

    class Handler(_Refusing):
        def do_HEAD(self) -> None:  # noqa: N802
            heard.append(time.monotonic())
            super().do_HEAD()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", heard
    server.shutdown()
    server.server_close()


async def _slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "done"


def test_the_bound_is_read_from_memlens_storage_timeout() -> None:
    assert stall_watch.timeout_of({}) == 30.0
    assert stall_watch.timeout_of({"MEMLENS_STORAGE_TIMEOUT": " 5s "}) == 5.0
    assert stall_watch.timeout_of({"MEMLENS_STORAGE_TIMEOUT": "2.5"}) == 2.5
    for bad in ("0", "-3", "soon", "inf", "nan"):
        with pytest.raises(ObjectStorageConfigError, match="MEMLENS_STORAGE_TIMEOUT is '"):
            stall_watch.timeout_of({"MEMLENS_STORAGE_TIMEOUT": bad})


def test_a_call_to_a_silent_endpoint_ends_within_the_bound(silent: str) -> None:
    stall_watch.watch(URI, silent, 0.6)
    started = time.monotonic()
    with pytest.raises(ObjectStorageStalledError) as raised:
        LOOP.run(_slow(30))
    assert 0.6 <= time.monotonic() - started < 2
    assert str(raised.value).startswith(
        f"the object store at '{silent}' did not answer within 0.6 s for '{URI}'; check the "
        f"endpoint (AWS_ENDPOINT_URL)")
    assert str(raised.value).endswith("or raise MEMLENS_STORAGE_TIMEOUT (seconds) if it is "
                                      "only slow")


def test_a_long_call_to_an_endpoint_that_answers_goes_on(
        answering: tuple[str, list[float]]) -> None:
    endpoint, heard = answering
    stall_watch.watch(URI, endpoint, 0.6)
    assert LOOP.run(_slow(2)) == "done"  # over three times the bound
    assert len(heard) >= 3  # asked every third of the bound while it lasted
    assert LOOP.run(_slow(0)) == "done"


def test_after_a_stall_the_next_call_waits_a_short_while_only(silent: str) -> None:
    stall_watch.watch(URI, silent, 2)
    with pytest.raises(ObjectStorageStalledError):
        LOOP.run(_slow(30))
    started = time.monotonic()
    with pytest.raises(ObjectStorageStalledError):  # a write's roll-back, say
        LOOP.run(_slow(30))
    assert time.monotonic() - started < stall_watch.HURRIED + 1


def test_forget_ends_the_watch_and_local_calls_are_never_bounded(silent: str) -> None:
    stall_watch.watch(URI, silent, 0.3)
    stall_watch.forget()
    assert LOOP.run(_slow(1)) == "done"


def _ctrl_c_soon() -> None:
    """SIGINT in 0.3 s, taken by a thread other than the main one."""
    def signal_from_another_thread() -> None:
        time.sleep(0.3)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    threading.Thread(target=signal_from_another_thread).start()


def test_ctrl_c_is_delivered_when_another_thread_takes_the_signal() -> None:
    """The kernel hands a process's SIGINT to any of its threads; LanceDB's runtime threads
    are most of them. LanceDB's own wait (no timeout) then never wakes for it."""
    stall_watch.watch(URI, None, 30)  # a store on object storage, no endpoint to probe
    _ctrl_c_soon()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        LOOP.run(_slow(10))
    assert time.monotonic() - started < 1.5


def test_after_ctrl_c_a_silent_endpoint_is_waited_on_briefly(silent: str) -> None:
    stall_watch.watch(URI, silent, 30)
    _ctrl_c_soon()
    with pytest.raises(KeyboardInterrupt):
        LOOP.run(_slow(10))
    started = time.monotonic()
    with pytest.raises(ObjectStorageStalledError, match="^interrupted while the object store"):
        LOOP.run(_slow(10))  # the roll-back a write runs on the way out
    assert time.monotonic() - started < stall_watch.HURRIED + 1
