"""`memlens mcp --http`: streamable HTTP with a bearer token (401 without it or with another),
sessions de-duplicated apart, and the token never in its output."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation

from memory_core.agents.mcp.event_loop import run_sync
from memory_core.agents.mcp.http import read_token
from memory_core.model.errors import InvalidConfigError
from tests.memory_core.agents.mcp.clients import call, free_port, http_server, seed

TOKEN = "tok-0123456789abcdef-secret"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}}
HEADERS = {"accept": "application/json, text/event-stream"}


async def _recalls(url: str, name: str) -> list[str]:
    async with create_mcp_http_client(headers={"authorization": f"Bearer {TOKEN}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(
                    name=name, version="1")) as session:
                await session.initialize()
                tools = [t.name for t in (await session.list_tools()).tools]
                first = (await call(session, "recall", query="memory store", limit=1))[1]
                again = (await call(session, "recall", query="memory store", limit=1))[1]
                return [" ".join(tools), first, again]


@pytest.mark.slow
def test_http_needs_the_token_and_keeps_sessions_apart(tmp_path: Path) -> None:
    path = tmp_path / "store"
    ids = seed(path, "default", [("the memory store is LanceDB", "decision"),
                                 ("the memory store has one table", "fact")])
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = tmp_path / "server.log"
    with http_server(path, port, token=TOKEN, log=log):
        missing = httpx.post(url, json=INIT, headers=HEADERS, timeout=30)
        wrong = httpx.post(url, json=INIT, timeout=30,
                           headers={**HEADERS, "authorization": "Bearer not-the-token-at-all"})
        right = httpx.post(url, json=INIT, timeout=30,
                           headers={**HEADERS, "authorization": f"Bearer {TOKEN}"})

        async def two_clients() -> list[list[str]]:
            out: list[list[str]] = []

            async def one(name: str) -> None:
                out.append(await _recalls(url, name))

            async with anyio.create_task_group() as group:
                group.start_soon(one, "agent-a")
                group.start_soon(one, "agent-b")
            return out

        sessions = run_sync(two_clients)
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert "bearer" in missing.text
    for tools, first, again in sessions:
        assert "remember" in tools.split()
        assert any(i in first for i in ids)  # each session is sent the best memory once
        assert "held back as already sent in this session" in again
    assert TOKEN not in log.read_text()


@pytest.mark.slow
def test_a_bind_beyond_loopback_without_a_token_is_refused(tmp_path: Path) -> None:
    import subprocess

    from tests.memory_core.agents.mcp.clients import MEMLENS, env

    done = subprocess.run([*MEMLENS, "mcp", "--store", str(tmp_path / "s"), "--http",
                           "--host", "0.0.0.0"], env=env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert "bearer token is required" in done.stderr and "MEMLENS_MCP_TOKEN" in done.stderr
    assert not (tmp_path / "s").exists()


def test_the_token_comes_from_a_file_or_the_environment(tmp_path: Path) -> None:
    file = tmp_path / "token"
    file.write_text(f"{TOKEN}\n")
    assert read_token(file, env={}) == TOKEN
    assert read_token(None, env={"MEMLENS_MCP_TOKEN": TOKEN}) == TOKEN
    assert read_token(None, env={}) is None
    file.write_text("short\n")
    with pytest.raises(InvalidConfigError, match="at least 16"):
        read_token(file, env={})
