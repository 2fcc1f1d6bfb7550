"""`build_server`: the memlens MCP server over one store and tenant, read tools always and the
write tools unless read-only."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from memory_core.agents.mcp import consolidation_tools, read_tools, recall_tools, write_tools
from memory_core.agents.mcp.session import ToolState

INSTRUCTIONS = (
    "memlens is this project's long-term memory, shared by every agent working on it. Call "
    "memory_overview once to see what it holds, recall before deciding something that may "
    "have been decided before, cite the memories your answer used, and remember decisions, "
    "lessons and preferences worth keeping (one idea per memory). Each tool's description "
    "starts with its layer and the most tokens its answer takes.")


def build_server(state: ToolState, *, read_only: bool = False) -> MCPServer[Any]:
    """The MCP server for `state`'s store; `read_only` serves (and lists) only the read tools.
    """
    from importlib.metadata import version

    server: MCPServer[Any] = MCPServer("memlens", instructions=INSTRUCTIONS,
                                       version=version("memlens"), log_level="WARNING")
    read_tools.register(server, state)
    recall_tools.register(server, state)
    consolidation_tools.register(server, state)
    if not read_only:
        write_tools.register(server, state)
    return server
