"""memory_core/__init__.py: the lazy `_EXPORTS` table (built from `_BY_MODULE`) and its
`if TYPE_CHECKING:` import block (what mypy and editors read) name the same things, no name
comes from two modules, and every export resolves."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import memory_core

INIT = Path(memory_core.__file__)


def _type_checking_imports() -> dict[str, str]:
    """{name: module} imported under `if TYPE_CHECKING:` in memory_core/__init__.py."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If)
              and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1, "expected one `if TYPE_CHECKING:` block at module level"
    found: dict[str, str] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        for alias in node.names:
            # `X as X` is how a typed re-export is spelled (mypy, pyright, ruff all read it).
            assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
            assert alias.name not in found, f"{alias.name} imported twice"
            found[alias.name] = node.module
    return found


def test_type_checking_block_matches_exports() -> None:
    assert _type_checking_imports() == memory_core._EXPORTS


def test_all_is_the_exports() -> None:
    assert memory_core.__all__ == sorted(memory_core._EXPORTS)


def test_every_export_resolves_to_its_module_attribute() -> None:
    for name, module in memory_core._EXPORTS.items():
        assert getattr(memory_core, name) is getattr(importlib.import_module(module), name), name


def test_no_name_is_exported_from_two_modules() -> None:
    listed = [name for names in memory_core._BY_MODULE.values() for name in names.split()]
    assert len(listed) == len(set(listed)) == len(memory_core._EXPORTS)
