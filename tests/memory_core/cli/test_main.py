"""The `memlens` group: every command registered, with help, store options and its layout."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

import memory_core.cli
from memory_core.cli import cli
from tests.conftest import run_cli

run = run_cli
CLI_DIR = Path(memory_core.cli.__file__).parent
#: every command and subcommand `memlens` users have; dropping one fails a test
COMMANDS = {"init", "serve", "stats", "add", "ls", "show", "search", "recall", "index",
            "reembed", "export", "import", "drill", "diff", "eval", "bench", "bench ingest",
            "bench search", "bench pages", "bench exchange", "bench curate", "edit", "archive",
            "restore",
            "supersede", "merge", "delete", "undo", "audit", "verify-deleted", "why", "link",
            "unlink", "graph", "graph health", "graph export", "bench graph", "bench decay",
            "correct", "cite", "events", "decay", "decay at-risk", "decay show",
            "decay impact", "decay what-if", "tune", "duplicates", "map", "bench map", "check",
            "mcp", "bench mcp", "agents", "replay", "consolidate", "consolidate suggest",
            "consolidate accept", "consolidate reject", "consolidate evaluate",
            "bench consolidate"}


def _commands(group: click.Group, prefix: tuple[str, ...] = ()
              ) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    names = []
    for path, command in _commands(cli):
        assert command.help, f"memlens {' '.join(path)} has no help text"
        code, out, _ = run([*path, "--help"], capsys)
        assert code == 0 and "Usage: memlens" in out, path
        names.append(" ".join(path))
    assert set(names) == COMMANDS


def test_commands_take_store_and_tenant() -> None:
    for path, command in _commands(cli):
        if isinstance(command, click.Group) or path[0] == "bench":
            continue
        options = {o for p in command.params for o in getattr(p, "opts", [])}
        assert {"--store", "--tenant"} <= options, path


def _cli_imports(path: Path) -> set[str]:
    """The `memory_core.cli...` modules that `path` imports (relative imports resolved)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = "memory_core.cli" + (f".{module}" if module else "")
            found |= {f"{module}.{a.name}" if module == "memory_core.cli" else module
                      for a in node.names}
    return {name for name in found if name.startswith("memory_core.cli")}


def test_command_modules_import_only_the_shared_options() -> None:
    # the package and `python -m memory_core.cli` assemble the commands: they import them all
    modules = sorted(p for p in CLI_DIR.glob("*.py") if p.name not in ("__init__.py",
                                                                        "__main__.py"))
    assert {p.stem for p in modules} >= {"options", "output", "memories", "search", "maintenance",
                                          "exchange", "eval", "bench"}
    # helpers (no commands of their own) are shared; a family never imports another family
    shared = {"memory_core.cli.options", "memory_core.cli.output"}
    helpers = {"options": set(), "output": set(),
               "curation_flow": shared | {"memory_core.cli.impact"},
               "impact": shared | {"memory_core.cli.query_sets"},
               "query_sets": set(),
               "curation_lineage": shared | {"memory_core.cli.curation_flow"},
               "stage_progress": shared}
    for path in modules:
        allowed = helpers.get(path.stem, {f"memory_core.cli.{h}" for h in helpers})
        assert _cli_imports(path) <= allowed, path.name


def test_the_ast_scan_sees_sibling_imports(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from memory_core.cli.search import search\nfrom . import bench\n"
                   "from memory_core.cli import options\nimport memory_core.cli.eval\n")
    assert _cli_imports(bad) == {"memory_core.cli.search", "memory_core.cli.bench",
                                 "memory_core.cli.options", "memory_core.cli.eval"}


def test_the_console_script_entry_point_runs() -> None:
    # pyproject's `memlens = "memory_core.cli:main"`, in a fresh interpreter
    done = subprocess.run([sys.executable, "-c", "from memory_core.cli import main; main()",
                           "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "memlens" in done.stdout, done.stderr


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "memory_core.cli", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "memlens" in done.stdout, done.stderr
