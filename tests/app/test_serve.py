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


def test_serve_answers_on_localhost(tmp_path: Path) -> None:
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
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
