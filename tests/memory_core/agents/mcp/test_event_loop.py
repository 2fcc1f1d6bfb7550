"""`run_sync`: an MCP client scenario runs from sync code even where a loop already runs."""

from __future__ import annotations

import asyncio
import threading

import anyio
import pytest

from memory_core.agents.mcp.event_loop import run_sync


async def _thread_name() -> str:
    await anyio.sleep(0)
    return threading.current_thread().name


def test_without_a_running_loop_it_runs_here() -> None:
    assert run_sync(_thread_name) == threading.current_thread().name


def test_inside_a_running_loop_it_runs_on_a_thread_of_its_own() -> None:
    """What a notebook cell, or a test after a browser session, does: anyio.run refuses."""

    async def cell() -> str:
        with pytest.raises(RuntimeError, match="Already running"):
            anyio.run(_thread_name)
        return run_sync(_thread_name)

    assert asyncio.run(cell()).startswith("memlens-mcp-client")
