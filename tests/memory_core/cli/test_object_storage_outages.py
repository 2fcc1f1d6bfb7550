"""A store on S3 whose server stalls (SIGSTOP: connections accepted, no answer) or dies in
the middle of a command: `stats` and `add` end within MEMLENS_STORAGE_TIMEOUT with one line
and exit 1, Ctrl-C ends them within a second or two, and a server killed during a write is
one line, not a traceback. Each command runs as a real `memlens` process; the server is
moto's in a process of its own (`FaultyS3Server`), which stops or kills itself when the
command's next request (or next write) reaches it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.memory_core.store.object_storage_server import FaultyS3Server

pytestmark = [pytest.mark.hardening, pytest.mark.slow]  # real processes, a server stopped

BUCKET = "memlens-outages"
#: What a process may take beyond the bound: LanceDB's start-up is done before the stall,
#: then one short wait for a write's roll-back (`stall_watch.HURRIED`) and the exit.
SLACK = 8.0


@pytest.fixture
def server() -> Iterator[FaultyS3Server]:
    pytest.importorskip("moto.server", reason="moto[server] (the dev extra) serves S3 here")
    started = FaultyS3Server().start()
    started.bucket(BUCKET)
    yield started
    started.stop()


def _env(server: FaultyS3Server, cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MEMLENS_"))}
    return {**env, **server.env(), "MEMLENS_EMBED_MODEL": "none",
            "MEMLENS_MODEL_CACHE": str(cache), **extra}


def _seeded(server: FaultyS3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> str:
    """A fresh store on the server holding one memory (written in this process)."""
    uri = f"s3://{BUCKET}/{uuid.uuid4().hex[:10]}"
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)  # none of the shell's: this server's only
    for name, value in _env(server, tmp_path / "cache").items():
        if name.startswith(("AWS_", "MEMLENS_")):
            monkeypatch.setenv(name, value)
    code, _, err = run_cli(["--store", uri, "add", "Object storage holds the tables"], capsys)
    assert code == 0, err
    return uri


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "memory_core.cli", *argv], env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # a shell's background job ignores SIGINT; a user's terminal delivers it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _finish(process: subprocess.Popen[str], within: float) -> tuple[int, str, float]:
    """(exit code, the non-empty stderr lines, seconds taken); fails if it runs on."""
    started = time.monotonic()
    try:
        _, err = process.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"memlens was still waiting {within} s later")
    lines = [line for line in err.splitlines() if line.strip()
             and not line.startswith("embedding unavailable")]
    return process.returncode, "\n".join(lines), time.monotonic() - started


@pytest.mark.parametrize(("argv", "stalls_at"), [(["stats"], "any"),
                                                 (["add", "One more memory"], "write")])
def test_a_stalled_endpoint_ends_the_command_within_the_bound_in_one_line(
        argv: list[str], stalls_at: str, server: FaultyS3Server, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    uri = _seeded(server, tmp_path, monkeypatch, capsys)
    server.stop_at_next(stalls_at)
    process = _start(["--store", uri, *argv],
                     _env(server, tmp_path / "cache", MEMLENS_STORAGE_TIMEOUT="3"))
    server.wait_stopped()
    code, err, took = _finish(process, within=60)  # it used to wait more than 7 min
    assert code == 1 and "\n" not in err, err
    assert err.startswith(f"Error: the object store at '{server.endpoint}' did not answer "
                          f"within 3 s for '{uri}'; check the endpoint"), err
    assert err.endswith("or raise MEMLENS_STORAGE_TIMEOUT (seconds) if it is only slow")
    assert took < 3 + SLACK


@pytest.mark.parametrize(("argv", "stalls_at", "line"), [
    (["stats"], "any", "aborted"),
    (["add", "One more memory"], "write", "Error: interrupted while the object store at"),
])
def test_ctrl_c_ends_a_command_waiting_on_a_stalled_endpoint_promptly(
        argv: list[str], stalls_at: str, line: str, server: FaultyS3Server, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    uri = _seeded(server, tmp_path, monkeypatch, capsys)
    server.stop_at_next(stalls_at)
    process = _start(["--store", uri, *argv], _env(server, tmp_path / "cache"))  # bound 30 s
    server.wait_stopped()
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    code, err, took = _finish(process, within=60)
    assert code == 1 and "\n" not in err and err.startswith(line), err
    assert took < 5  # a second or two, on a loaded machine; not the 30 s bound


def test_a_server_killed_during_a_write_is_one_line_not_a_traceback(
        server: FaultyS3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    uri = _seeded(server, tmp_path, monkeypatch, capsys)
    lines = tmp_path / "more.ndjson"
    lines.write_text("".join(f'{{"content": "memory {n} written as the server dies"}}\n'
                             for n in range(50)), encoding="utf-8")
    server.kill_at_next("write")
    process = _start(["--store", uri, "add", "--file", str(lines)],
                     _env(server, tmp_path / "cache", MEMLENS_STORAGE_TIMEOUT="5"))
    server.wait_stopped()
    code, err, _ = _finish(process, within=120)
    assert code == 1 and "\n" not in err, err  # it used to be 85-89 lines of traceback
    assert err.startswith(f"Error: the object store at '{server.endpoint}' d"), err
    assert "answer" in err and "damaged" not in err
