"""Run an async MCP client scenario to the end from synchronous code, also where the calling
thread already runs an event loop (a notebook's kernel, a Streamlit script, a test after a
browser session), which `anyio.run` refuses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def _loop_running_here() -> bool:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:  # asyncio's own way to say no loop runs in this thread
        return False
    return True


def run_sync(func: Callable[..., Awaitable[T]], *args: Any) -> T:
    """`anyio.run(func, *args)`, on a thread of its own when this thread runs a loop already.

    >>> async def answer(x: int) -> int:
    ...     return x + 1
    >>> run_sync(answer, 41)
    42
    """
    import anyio

    if not _loop_running_here():
        return anyio.run(func, *args)
    with ThreadPoolExecutor(1, thread_name_prefix="memlens-mcp-client") as pool:
        return pool.submit(anyio.run, func, *args).result()
