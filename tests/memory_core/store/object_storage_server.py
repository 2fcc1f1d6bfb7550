"""An S3-compatible server on loopback for tests: moto's, in a thread of the test process.

`S3Server.start()` serves on a free 127.0.0.1 port; `bucket()` creates a bucket; `keys()`
lists what a prefix holds; `requiring_auth()` makes the server check credentials for a while
(moto accepts any by default). Requests go over plain HTTP with `urllib` (moto accepts
unsigned requests while it does not check credentials), so no AWS SDK is needed here.

`FaultyS3Server` is the same server in a process of its own (`python -m` this module), so
that it can be stopped with SIGSTOP (a stalled endpoint: connections are accepted, nothing
answers) or killed; `stop_at_next`/`kill_at_next` make it do so to itself when the next
request (or the next write) comes in, so a test stalls or kills it in the middle of a call.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REGION = "us-east-1"
#: Any key is accepted while the server does not check credentials.
ACCESS_KEY = "memlens-test"
SECRET_KEY = "memlens-test-secret"


@dataclass
class S3Server:
    """A moto S3 server on 127.0.0.1; `endpoint` is its URL once started."""

    server: Any = None
    endpoint: str = ""

    def start(self) -> S3Server:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log on stderr
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def env(self) -> dict[str, str]:
        """The variables a memlens process needs to use this server."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": REGION}

    def _request(self, method: str, path: str, data: bytes | None = None) -> bytes:
        request = urllib.request.Request(self.endpoint + path, data=data, method=method,
                                         headers={"Content-Type": "text/plain"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return bytes(response.read())

    def bucket(self, name: str) -> str:
        """Create the bucket `name` (if missing); returns it."""
        self._request("PUT", f"/{name}")
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        """Every object key under `prefix` in `bucket`."""
        keys: list[str] = []
        token = ""
        while True:
            body = self._request(
                "GET", f"/{bucket}?list-type=2&prefix={prefix}{token}").decode()
            keys += re.findall(r"<Key>([^<]+)</Key>", body)
            found = re.search(r"<NextContinuationToken>([^<]+)</NextContinuationToken>", body)
            if not found:
                return keys
            token = f"&continuation-token={urllib.parse.quote(found.group(1))}"

    @contextmanager
    def requiring_auth(self) -> Iterator[None]:
        """Check credentials (only keys made in moto's IAM pass, so ours fail) meanwhile."""
        self._request("POST", "/moto-api/reset-auth", b"0")
        try:
            yield
        finally:
            self._request("POST", "/moto-api/reset-auth", b"inf")


#: The path the faulty server's own commands go to: /_fault/<stop|kill>/<any|write>.
_FAULT = "/_fault/"
_WRITES = frozenset({"PUT", "POST", "DELETE"})


def _faulty_app() -> Callable[..., Iterable[bytes]]:
    """moto's WSGI app behind a switch: once armed, the next request (or write) stops or
    kills the whole process before moto sees it."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    inner = DomainDispatcherApplication(create_backend_app)
    armed: dict[str, str] = {}

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path.startswith(_FAULT):
            action, when = path.removeprefix(_FAULT).split("/")
            armed.update(action=action, when=when)
            start_response("200 OK", [("Content-Length", "0")])
            return [b""]
        if armed and (armed["when"] == "any" or environ["REQUEST_METHOD"] in _WRITES):
            action = armed.pop("action")
            armed.clear()
            os.kill(os.getpid(), signal.SIGSTOP if action == "stop" else signal.SIGKILL)
        return inner(environ, start_response)

    return app


def _serve() -> None:
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = make_server("127.0.0.1", 0, _faulty_app(), threaded=True)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


@dataclass
class FaultyS3Server(S3Server):
    """A moto S3 server in a child process that a test can stall (SIGSTOP) or kill."""

    process: subprocess.Popen[str] | None = None

    def start(self) -> FaultyS3Server:
        root = Path(__file__).resolve().parents[3]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.memory_core.store.object_storage_server"], cwd=root,
            stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.endpoint = self.process.stdout.readline().strip()
        assert self.endpoint.startswith("http://"), "the faulty S3 server did not start"
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(timeout=30)
            self.process = None

    def stop_at_next(self, request: str = "any") -> None:
        """SIGSTOP the server when the next request (`"any"`) or write (`"write"`) comes."""
        self._request("POST", f"{_FAULT}stop/{request}", b"")

    def kill_at_next(self, request: str = "any") -> None:
        """SIGKILL the server when the next request (or write) comes."""
        self._request("POST", f"{_FAULT}kill/{request}", b"")

    def wait_stopped(self, timeout: float = 120) -> None:
        """Return once the server has stopped itself (or died); fail after `timeout` s."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.process.pid, os.WNOHANG | os.WUNTRACED)
            if pid and (os.WIFSTOPPED(status) or os.WIFSIGNALED(status)):
                return
            time.sleep(0.05)
        raise AssertionError(f"the faulty S3 server did not stop within {timeout} s")


if __name__ == "__main__":
    _serve()
