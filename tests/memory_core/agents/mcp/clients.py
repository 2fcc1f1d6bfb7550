"""Real MCP client sessions for the tests: the SDK's client over stdio, spawning
`memlens mcp` as a process, and over streamable HTTP; stores made with embedding off
(`MEMLENS_EMBED_MODEL=none`: BM25 recall, pending writes) so the processes start fast."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import Implementation

from memory_core.model.config import Settings
from memory_core.model.records import Memory
from memory_core.store import MemoryStore

MEMLENS = [sys.executable, "-m", "memory_core.cli"]


def env(**extra: str) -> dict[str, str]:
    """The environment of a `memlens` process of a test: embedding off, the test's cache."""
    return {"MEMLENS_EMBED_MODEL": "none",
            "MEMLENS_MODEL_CACHE": os.environ["MEMLENS_MODEL_CACHE"], **extra}


def open_store(path: Path, tenant: str = "default") -> MemoryStore:
    """The store at `path` for `tenant` as the server processes open it (embedding off)."""
    settings = Settings.from_env(env=env(), store_uri=str(path), tenant=tenant)
    return MemoryStore.open(settings=settings)


def seed(path: Path, tenant: str, contents: list[tuple[str, str]]) -> list[str]:
    """Add (content, type) memories to `tenant`; their ids in order."""
    store = open_store(path, tenant)
    memories = [Memory.new(c, t, tenant=tenant, project="herd", agent="seeder")
                for c, t in contents]
    store.add(memories)
    return [m.id for m in memories]


@asynccontextmanager
async def stdio_session(store: Path, *args: str, name: str = "test-agent",
                        extra_env: dict[str, str] | None = None
                        ) -> AsyncIterator[ClientSession]:
    """An initialized client session with `memlens mcp --store STORE ARGS` over stdio."""
    params = StdioServerParameters(command=MEMLENS[0],
                                   args=[*MEMLENS[1:], "mcp", "--store", str(store), *args],
                                   env=env(**(extra_env or {})))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(
                    name=name, version="1"), read_timeout_seconds=120) as session:
                await session.initialize()
                yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, str]:
    """(is the answer an error, its text)."""
    result = await session.call_tool(tool, arguments)
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    return bool(result.is_error), text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(store: Path, port: int, *args: str, token: str | None = None,
                log: Path | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """`memlens mcp --http --port PORT` running until the block ends (stopped, then
    waited for); its stderr goes to `log`."""
    extra = {"MEMLENS_MCP_TOKEN": token} if token else {}
    errors = open(log or os.devnull, "wb")
    process = subprocess.Popen(
        [*MEMLENS, "mcp", "--store", str(store), "--http", "--port", str(port), *args],
        env={**os.environ, **env(**extra)}, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"memlens mcp --http exited with {process.returncode}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError("memlens mcp --http did not start listening")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        errors.close()
