"""House rules a reviewer would check: layering, import cost, lint and types."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def engine_importers(package: str) -> list[str]:
    """The modules of memory_core that import `package` (or a module of it)."""
    offenders = []
    for path in (ROOT / "memory_core").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == package or n.startswith(f"{package}.") for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    return offenders


def test_engine_never_imports_streamlit() -> None:
    assert engine_importers("streamlit") == []


def test_engine_never_imports_the_app() -> None:
    """The app (memlens_app) sits on the engine: `memlens serve` and `memlens bench pages`
    name its modules for a subprocess, and nothing in memory_core imports it."""
    assert engine_importers("memlens_app") == []


def test_engine_never_imports_the_tools() -> None:
    """`tools/` (the demo-corpus generator) is the checkout's, not shipped in the wheel."""
    assert engine_importers("tools") == []


def test_importing_memory_core_loads_no_heavy_library() -> None:
    code = ("import sys, memory_core; heavy = {'lancedb', 'fastembed', 'polars', 'plotly', "
            "'umap', 'pyvis', 'networkx', 'streamlit', 'onnxruntime'}; "
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert out == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    [sys.executable, "-m", "ruff", "check", "memory_core", "memlens_app", "app.py", "tools",
     "tests", "notebooks"],
    [sys.executable, "-m", "mypy"],
])
def test_lint_and_types_are_clean(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_pages_folder_beside_the_router() -> None:
    """Streamlit treats a `pages/` folder beside the entry script as its legacy navigation:
    on a fresh server, a first visit straight to /ranking_lab listed every widget module as a
    page and skipped the router's store picker. So the page scripts live in
    `memlens_app/page_scripts/`, beside neither entry script (memlens_app/main.py, app.py)."""
    assert not (ROOT / "pages").exists() and not (ROOT / "memlens_app" / "pages").exists()
    from memlens_app.widgets.common.routes import PAGES

    assert "page_scripts/ranking_lab.py" in {spec.script for spec in PAGES}
