"""`memlens serve` in a subprocess on a free loopback port, stopped whatever happens."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a server may take to answer its health check (Streamlit imports, the model loads
#: later, on the first page).
START_TIMEOUT = 90


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
            return bool(resp.read().decode().strip() == "ok")
    except OSError:
        return False


@contextmanager
def serving(store: Path, model_cache: Path, log: Path,
            tenant: str | None = None) -> Iterator[str]:
    """Run `memlens serve --no-seed` on `store` and yield its base URL once healthy; its
    process group is killed afterwards, whatever happened. The server's output goes to
    `log` (quoted in the failure when it never comes up)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLENS_")}
    env.update(MEMLENS_MODEL_CACHE=str(model_cache), MEMLENS_STORE=str(store))
    if tenant is not None:
        env["MEMLENS_TENANT"] = tenant
    argv = [sys.executable, "-m", "memory_core.cli", "serve", "--no-seed", "--port",
            str(port), "--store", str(store)]
    with running(argv, port, cwd=ROOT, env=env, log=log) as url:
        yield url


@contextmanager
def running(argv: list[str], port: int, *, cwd: Path, env: dict[str, str],
            log: Path) -> Iterator[str]:
    """Run the server command `argv` (listening on `port`) from `cwd` and yield its base
    URL once healthy; its process group is killed afterwards, whatever happened. Its
    output goes to `log` (quoted in the failure when it never comes up)."""
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not _healthy(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"memlens serve did not come up on {url} (exit "
                                       f"{process.poll()}):\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
            yield url
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)
