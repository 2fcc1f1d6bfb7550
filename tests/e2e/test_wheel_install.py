"""memlens installed from its wheel, as `pipx install` would, outside any checkout: the wheel
holds the app, its settings, favicon and the demo corpus; `memlens init --demo` and
`memlens serve` work from a folder of their own, and a page renders in Chromium.

The venv sees this interpreter's packages (`--system-site-packages`), so nothing but the
wheel is installed (`--no-deps`); the checkout's editable install must not shadow it, which
the test checks by where `memlens_app` and `memory_core` are imported from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.e2e.server import free_port, running

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: What the checkout holds that is no part of a build (and would only slow the copy).
NOT_SOURCE = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__",
                                    ".*_cache", ".hypothesis", ".benchmarks", ".venv",
                                    "test-artifacts", "store", "exports")
#: Files a working app needs from the wheel, beside the Python modules.
SHIPPED = ("memlens_app/main.py", "memlens_app/server.py", "memlens_app/streamlit_config.toml",
           "memlens_app/favicon.png", "memlens_app/page_scripts/overview.py",
           "memory_core/demo_data/demo_export.ndjson", "memory_core/demo_data/demo_vectors.npz",
           "memory_core/demo_data/queries.ndjson", "memory_core/demo_data/demo_order.json",
           "memory_core/embedding/tokenizer.json")


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600
         ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the checkout (a build writes into its source tree)."""
    work = tmp_path_factory.mktemp("wheel-build")
    source = work / "src"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir",
          str(work / "dist"), str(source)], cwd=work, env=dict(os.environ))
    [built] = (work / "dist").glob("memlens-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv, outside the checkout, with the wheel installed and nothing else."""
    folder = tmp_path_factory.mktemp("wheel-venv") / "venv"
    env = _clean_env()
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(folder)],
         cwd=folder.parent, env=env)
    if sys.prefix != sys.base_prefix:
        # this interpreter is itself a venv (as in CI): `--system-site-packages` reaches the
        # base interpreter's packages, not the dependencies installed here, so the new venv
        # gets this one's site-packages as plain paths, after its own (a path added by a .pth
        # file is not scanned for .pth files, so the checkout's editable install stays out)
        [own] = folder.glob("lib/python*/site-packages")
        (own / "memlens_test_dependencies.pth").write_text(
            "\n".join(p for p in sys.path if p.endswith("site-packages")) + "\n",
            encoding="utf-8")
    # --ignore-installed: this interpreter's editable memlens is installed too, and pip would
    # otherwise take that one as the wheel's
    _run([str(folder / "bin" / "python"), "-m", "pip", "install", "--no-deps",
          "--ignore-installed", "--quiet", str(wheel)], cwd=folder.parent, env=env)
    return folder


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without memlens' settings or a PYTHONPATH into the checkout."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMLENS_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def test_the_wheel_ships_the_app_and_the_demo_corpus(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(SHIPPED) <= names, sorted(set(SHIPPED) - names)
    # the checkout's own: tests, and the demo-corpus generator (tools/demo_corpus)
    assert not [n for n in names if n.startswith(("tests/", "app_pages/", "data/", "tools/",
                                                  "memory_core/demo/"))]


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A working folder with no checkout in it or above it."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    assert not (folder / "memlens_app").exists() and not folder.is_relative_to(ROOT)
    return folder


def test_the_venv_imports_memlens_from_the_wheel(venv: Path, elsewhere: Path) -> None:
    done = _run([str(venv / "bin" / "python"), "-c",
                 "import memlens_app, memory_core; print(memlens_app.__file__); "
                 "print(memory_core.__file__)"], cwd=elsewhere, env=_clean_env())
    app_file, core_file = done.stdout.split()
    assert Path(app_file).is_relative_to(venv), app_file
    assert Path(core_file).is_relative_to(venv), core_file


@pytest.fixture
def served(venv: Path, elsewhere: Path) -> Iterator[str]:
    """`memlens init --demo` then `memlens serve --store` (the venv's command) from a folder
    of their own; the server's base URL once healthy, stopped afterwards whatever happened."""
    memlens = str(venv / "bin" / "memlens")
    store = elsewhere / "my-store"
    env = _clean_env(MEMLENS_MODEL_CACHE=str(elsewhere / "cache"))
    seeded = _run([memlens, "init", "--demo", "--store", str(store)], cwd=elsewhere, env=env)
    assert "seeded" in seeded.stdout and "memories" in seeded.stdout
    port = free_port()
    with running([memlens, "serve", "--store", str(store), "--port", str(port)], port,
                 cwd=elsewhere, env=env, log=elsewhere / "serve.log") as url:
        yield url


def _demo_memories(package: Path) -> int:
    """The memories of the demo export the installed package ships (one a line)."""
    export = package / "demo_data" / "demo_export.ndjson"
    return sum('"kind":"memory"' in line for line in export.read_text().splitlines())


def test_the_installed_app_serves_the_demo_store(served: str, browser: Browser,
                                                 venv: Path) -> None:
    """The Overview page in Chromium: memlens' own favicon (from the installed package) and
    the demo store's counts, rendered by the installed app."""
    from playwright.sync_api import expect

    from tests.e2e.browser import new_context, open_visit

    [installed] = venv.glob("lib/python*/site-packages")
    context = new_context(browser)
    try:
        with open_visit(context, served) as visit:
            visit.open("/")
            visit.check()
            page = visit.page
            expect(page.get_by_role("heading", name="Overview")).to_be_visible()
            memories = page.locator('[data-testid="stMetric"]', has_text="Memories") \
                .locator('[data-testid="stMetricValue"]')
            expect(memories).to_have_text(str(_demo_memories(installed / "memory_core")))
            icons = page.evaluate(
                "[...document.querySelectorAll('link[rel~=icon]')].map(link => link.href)")
            favicon = installed / "memlens_app" / "favicon.png"
            assert page.request.get(icons[0]).body() == favicon.read_bytes()
    finally:
        context.close()
