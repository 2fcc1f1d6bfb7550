"""`run_sync`: an MCP client scenario runs from sync code even where a loop already runs."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import anyio
import pytest

from memory_core.agents.mcp.event_loop import run_sync


async def _thread_name() -> str:
    await anyio.sleep(0)
    return threading.current_thread().name


def test_without_a_running_loop_it_runs_here() -> None:
    def plain() -> tuple[str, str]:
        return run_sync(_thread_name), threading.current_thread().name

    with ThreadPoolExecutor(1) as pool:
        ran, caller = pool.submit(plain).result()
    assert ran == caller


def test_inside_a_running_loop_it_runs_on_a_thread_of_its_own() -> None:
    """What a notebook cell, or a test after a browser session, does: anyio.run refuses."""

    async def cell() -> str:
        with pytest.raises(RuntimeError, match="Already running"):
            anyio.run(_thread_name)
        return run_sync(_thread_name)

    # on a fresh thread: the test's own thread may hold a loop another test left running
    with ThreadPoolExecutor(1) as pool:
        name = pool.submit(asyncio.run, cell()).result()
    assert name.startswith("memlens-mcp-client")
