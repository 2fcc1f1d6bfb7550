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
from tests.e2e.browser import Visit, new_context, open_visit
from tests.e2e.chromium import CHROMIUM, missing_browser
from tests.e2e.demo_copy import DemoCopy, prepare
from tests.e2e.server import serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

HERE = Path(__file__).parent
#: Milliseconds an `expect` waits for its condition (Playwright's default is 5 s): on a
#: loaded machine a rerun's result can take longer to show, though the rerun has started.
EXPECT_TIMEOUT = 30_000


@pytest.hookimpl(tryfirst=True)  # before tests/conftest.py's hook, which makes e2e imply slow
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of this folder `e2e`; skip them when Chromium or Playwright is missing."""
    reason = missing_browser()
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)
            # one pytest-xdist worker per module (pages on the demo copy, hostile on the
            # hostile store): each module's visits share its server, and the two modules
            # run side by side, beside the hardening tests
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
    """One Chromium for the whole run (of this worker)."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def context(browser: Browser) -> Iterator[BrowserContext]:
    """One browser context for the run (of this worker): every test opens a page of its own
    in it (`open_visit`)."""
    opened = new_context(browser)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def visit(context: BrowserContext, demo_server: str) -> Iterator[Visit]:
    """A new page (a Streamlit session of its own) on the demo server."""
    with open_visit(context, demo_server) as fresh:
        yield fresh
