"""The memlens MCP server (`memlens mcp`): agents recall, remember, cite and correct through
the official MCP SDK, on one store and tenant fixed at start. Tools are grouped in the layers
of ADR-008 (docs/design/seeds.md)."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_core.agents.mcp.budgets import BUDGETS, read_tool_names
    from memory_core.agents.mcp.server import build_server
    from memory_core.agents.mcp.session import ToolState

__all__ = ["BUDGETS", "ToolState", "build_server", "read_tool_names"]

#: Where each name lives: imported on first use, so that `memlens mcp` can read its token
#: (`memory_core.agents.mcp.http`) and start warming the store before the SDK is imported.
_HOMES = {"BUDGETS": "budgets", "read_tool_names": "budgets", "build_server": "server",
          "ToolState": "session"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
