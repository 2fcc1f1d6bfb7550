"""Streamable HTTP for `memlens mcp --http`: the bearer token and the server loop.

The token comes from `MEMLENS_MCP_TOKEN` or a file (never the command line, where `ps` and
shell history show it). It is required when the server binds anything but loopback. Every
HTTP request without `Authorization: Bearer <token>` (or with another token) gets 401 before
MCP sees it; the token is compared in constant time and never logged.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown

TOKEN_ENV = "MEMLENS_MCP_TOKEN"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
MIN_TOKEN_CHARS = 16
MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
PATH = "/mcp"


def read_token(token_file: Path | None, env: Mapping[str, str] | None = None) -> str | None:
    """The bearer token from `token_file` (its first line) or `MEMLENS_MCP_TOKEN`; None when
    neither gives one. A token shorter than `MIN_TOKEN_CHARS` is refused."""
    env = os.environ if env is None else env
    if token_file is not None:
        try:
            lines = token_file.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise InvalidConfigError(f"cannot read the token file {shown(str(token_file))}: "
                                     f"{exc.strerror}") from None
        token = lines[0].strip() if lines else ""
        if not token:
            raise InvalidConfigError(f"the token file {shown(str(token_file))} is empty; "
                                     f"write a token in it ({MAKE_TOKEN})")
    else:
        token = env.get(TOKEN_ENV, "").strip()
        if not token:
            return None
    if len(token) < MIN_TOKEN_CHARS or not token.isascii() or not token.isprintable():
        raise InvalidConfigError(f"the bearer token must be at least {MIN_TOKEN_CHARS} "
                                 f"printable ASCII characters; make one with {MAKE_TOKEN}")
    return token


def check_bind(host: str, token: str | None) -> None:
    """Refuse a bind beyond loopback without a token."""
    if host not in LOOPBACK and token is None:
        raise InvalidConfigError(
            f"--host {shown(host)} is reachable from other machines, so a bearer token is "
            f"required: set {TOKEN_ENV} or give --token-file ({MAKE_TOKEN})")


class BearerAuth:
    """ASGI middleware answering 401 to HTTP requests without the bearer token."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", ()) if k == b"authorization"),
                         b"")
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body",
                            "body": b"missing or wrong bearer token\n"})
                return
        await self.app(scope, receive, send)


def serve_http(server: Any, host: str, port: int, token: str | None) -> None:
    """Serve `server` (an `MCPServer`) over streamable HTTP at `PATH` until interrupted."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=PATH, host=host)
    if token is not None:
        app = BearerAuth(app, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            lifespan="on")
    uvicorn.Server(config).run()
