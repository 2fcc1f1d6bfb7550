"""An S3-compatible server on loopback for tests: moto's, in a thread of the test process.

`S3Server.start()` serves on a free 127.0.0.1 port; `bucket()` creates a bucket; `keys()`
lists what a prefix holds; `requiring_auth()` makes the server check credentials for a while
(moto accepts any by default). Requests go over plain HTTP with `urllib` (moto accepts
unsigned requests while it does not check credentials), so no AWS SDK is needed here.
"""

from __future__ import annotations

import logging
import re
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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
            token = f"&continuation-token={urllib.request.quote(found.group(1))}"

    @contextmanager
    def requiring_auth(self) -> Iterator[None]:
        """Check credentials (only keys made in moto's IAM pass, so ours fail) meanwhile."""
        self._request("POST", "/moto-api/reset-auth", b"0")
        try:
            yield
        finally:
            self._request("POST", "/moto-api/reset-auth", b"inf")
