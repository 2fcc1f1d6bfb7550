"""The web app (everything under memlens_app/, and the checkout's app.py) uses only
memory_core's public API: `from memory_core import ...` of names in `__all__`, and no store
internals: `MemoryStore`'s methods and its public parts (`store.audit`, `store.edges`, ...) are
the API, its tables and speed-up layer are not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import memory_core

ROOT = Path(__file__).resolve().parents[2]
APP_FILES = sorted([ROOT / "app.py", *(ROOT / "memlens_app").rglob("*.py")])
# What only the store itself may touch (docs/design/index.md, "The store as one composition").
STORE_INTERNALS = ("tables", "accel", "row_cache", "edge_index")


def offences(source: str) -> list[str]:
    """What in `source` reaches past memory_core's public API, one line per offence."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        where = f"line {line}"
        if isinstance(node, ast.Import):
            found += [(line, f"{where}: import {a.name}") for a in node.names
                      if a.name.startswith("memory_core.")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("memory_core."):
                found.append((line, f"{where}: from {node.module} import ..."))
            elif node.module == "memory_core":
                found += [(line, f"{where}: {a.name} is not in memory_core.__all__")
                          for a in node.names if a.name not in memory_core.__all__]
        elif isinstance(node, ast.Attribute) and node.attr in STORE_INTERNALS:
            found.append((line, f"{where}: .{node.attr}"))
    return [text for _, text in sorted(found)]


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_app_uses_only_the_public_api(path: Path) -> None:
    assert offences(path.read_text(encoding="utf-8")) == [], \
        f"{path.relative_to(ROOT)}: use `from memory_core import ...` and MemoryStore's methods"


@pytest.mark.parametrize("source, expected", [
    ("from memory_core.store import MemoryStore", ["line 1: from memory_core.store import ..."]),
    ("import memory_core.viz.diff", ["line 1: import memory_core.viz.diff"]),
    ("from memory_core import _EXPORTS", ["line 1: _EXPORTS is not in memory_core.__all__"]),
    ("store.tables.edges.checkout_latest()", ["line 1: .tables"]),
    ("held = store.accel.row_cache", ["line 1: .accel", "line 1: .row_cache"]),
    ("store.edge_index", ["line 1: .edge_index"]),
    ("from memory_core import MemoryStore, search\nstore.audit.entries(limit=5)\n"
     "names = sorted(counts.keys())\nstore.edges.list(memory_id='m')", []),
])
def test_the_scan_catches_each_kind_of_reach(source: str, expected: list[str]) -> None:
    assert offences(source) == expected


def test_the_scan_covers_the_pages_and_their_widgets() -> None:
    names = {str(p.relative_to(ROOT)) for p in APP_FILES}
    assert {"app.py", "memlens_app/main.py", "memlens_app/page_scripts/search.py",
            "memlens_app/widgets/common/state.py", "memlens_app/server.py"} <= names
