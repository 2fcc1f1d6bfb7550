"""The memlens MCP server (`memlens mcp`): agents recall, remember, cite and correct through
the official MCP SDK, on one store and tenant fixed at start (issue 38; seed 003 ADR-008)."""

from memory_core.agents.mcp.budgets import BUDGETS, read_tool_names
from memory_core.agents.mcp.server import build_server
from memory_core.agents.mcp.session import ToolState

__all__ = ["BUDGETS", "ToolState", "build_server", "read_tool_names"]
