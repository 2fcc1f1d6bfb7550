"""memory_core's public API: every name is written once, in `memory_core/__init__.pyi`; each
resolves lazily to the object its module defines, no name is exported twice, names too generic
for the top level are qualified, and `import memory_core` loads none of the heavy libraries."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import memory_core

STUB = Path(memory_core.__file__).with_suffix(".pyi")


def _stub_exports() -> dict[str, str]:
    """{name: module} as `__init__.pyi` imports them."""
    found: dict[str, str] = {}
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Expr):  # the docstring
            continue
        assert isinstance(node, ast.ImportFrom) and node.level == 1 and node.module, \
            f"{ast.unparse(node)}: the stub holds only `from .module import X as X`"
        for alias in node.names:
            # `X as X` is how a typed re-export is spelled (mypy, pyright, ruff all read it).
            assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
            assert alias.name not in found, f"{alias.name} is exported twice"
            found[alias.name] = f"memory_core.{node.module}"
    return found


def test_all_is_what_the_stub_names() -> None:
    assert sorted(memory_core.__all__) == sorted(_stub_exports())


def test_every_export_resolves_to_its_module_attribute() -> None:
    for name, module in _stub_exports().items():
        assert getattr(memory_core, name) is getattr(importlib.import_module(module), name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        memory_core.no_such_name  # noqa: B018


@pytest.mark.parametrize("generic", ["Side", "Step", "Fork", "Finding"])
def test_names_too_generic_for_the_top_level_are_qualified(generic: str) -> None:
    assert generic not in memory_core.__all__
    qualified = {"Side": "ContradictionSide", "Step": "LineageStep", "Fork": "LineageFork",
                 "Finding": "HealthFinding"}[generic]
    assert qualified in memory_core.__all__


def test_importing_the_package_loads_no_heavy_library() -> None:
    code = ("import sys, memory_core; heavy = {'lancedb', 'pyarrow', 'polars', 'numpy', "
            "'onnxruntime', 'sklearn', 'plotly'} & set(sys.modules); print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
