"""The MCP Inspector's CLI mode (`@modelcontextprotocol/inspector`, from the npm registry)
lists the server's tools: an independent client agrees with the SDK's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_core.agents.mcp import BUDGETS
from tests.memory_core.agents.mcp.clients import env, seed

pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("npx") is None or shutil.which("memlens") is None,
                    reason="needs Node.js (npx) and the memlens command on PATH")
def test_the_inspector_lists_every_tool(tmp_path: Path) -> None:
    path = tmp_path / "store"
    seed(path, "default", [("the memory store is LanceDB", "decision")])
    done = subprocess.run(
        ["npx", "-y", "@modelcontextprotocol/inspector", "--cli", "memlens", "mcp",
         "--store", str(path), "--method", "tools/list"],
        env={**os.environ, **env()}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    tools = {t["name"]: t for t in json.loads(done.stdout)["tools"]}
    assert sorted(tools) == sorted(BUDGETS)
    assert tools["recall"]["inputSchema"]["properties"]["tier"]["default"] == "compact"
    assert tools["remember"]["description"].startswith("[L3 ")
