"""`memlens serve` really starts the web app (the first README command)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> set[str]:
    """Local addresses with a socket listening on `port` (Linux /proc/net), as hex."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for row in path.read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, _, hex_port = local.rpartition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_serve_answers_on_localhost(tmp_path: Path) -> None:
    """It answers on 127.0.0.1 and listens there only: the app has no login, so by default
    nobody else on the network can reach it."""
    port = _free_port()
    env = {**os.environ, "MEMLENS_STORE": str(tmp_path / "store")}
    process = subprocess.Popen(
        [sys.executable, "-c", "from memory_core.cli import main; main()", "serve", "--no-seed",
         "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        body = ""
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as resp:
                    body = resp.read().decode()
                    break
            except OSError:
                time.sleep(0.5)
        assert "<title>" in body.lower() or "streamlit" in body.lower()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
            assert r.read().decode().strip() == "ok"
        if Path("/proc/net/tcp").exists():
            assert _listening(port) == {"0100007F"}  # 127.0.0.1, little-endian hex
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
