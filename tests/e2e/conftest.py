"""Fixtures of the browser tests: Chromium (Debian's, never a download) driven by Playwright,
and `memlens serve` on copies of the seeded demo store and of a hostile store.

Every test here is marked `e2e` (which implies `slow`). Without /usr/bin/chromium or the
`playwright` package they skip, saying how to enable them.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memory_core.store import MemoryStore
from tests.e2e.browser import Visit, open_visit
from tests.e2e.chromium import CHROMIUM, missing_browser
from tests.e2e.demo_copy import DemoCopy, prepare
from tests.e2e.server import serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before tests/conftest.py's hook, which makes e2e imply slow
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of this folder `e2e`; skip them when Chromium or Playwright is missing."""
    reason = missing_browser()
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)
            # one pytest-xdist worker per module (pages, tasks, hostile): the modules share
            # a worker's server copies and Chromium, and two modules run side by side (a
            # browser test mostly waits for the page)
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def e2e_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MEMLENS_MODEL_CACHE of the servers (model config files, cached maps), shared."""
    return tmp_path_factory.mktemp("e2e-cache")


@pytest.fixture(scope="session")
def demo_copy(demo_store: MemoryStore, e2e_cache: Path,
              tmp_path_factory: pytest.TempPathFactory) -> DemoCopy:
    """A copy of the seeded demo store (the tests write to it: curation) with one export in
    its exports folder, made before a change, so Export Diff has something to show."""
    folder = tmp_path_factory.mktemp("e2e-demo")
    shutil.copytree(demo_store.uri, folder / "store")
    return prepare(folder / "store", e2e_cache)


@pytest.fixture(scope="session")
def demo_server(demo_copy: DemoCopy, e2e_cache: Path,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`memlens serve` on the demo copy: its base URL."""
    log = tmp_path_factory.mktemp("e2e-logs") / "demo-server.log"
    with serving(demo_copy.store, e2e_cache, log) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the whole run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def visit(browser: Browser, demo_server: str) -> Iterator[Visit]:
    """A fresh page (its own browser context: no shared session) on the demo server."""
    with open_visit(browser, demo_server) as fresh:
        yield fresh
