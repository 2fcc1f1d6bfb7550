"""Every page of the router in Chromium, opened by its URL on a fresh server (a deep link):
that page, with the store picker, no exception box and no console error, its key element,
its name in the browser tab, and a screenshot; and the app's menu and favicon."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from app_pages.widgets.routes import PAGES, PageSpec
from tests.e2e.browser import Visit, open_visit
from tests.e2e.chromium import PLAYWRIGHT_MISSING
from tests.e2e.demo_copy import DemoCopy
from tests.e2e.server import serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

#: The element that shows a page did its work, by the page's URL path (every page needs one).
KEY_ELEMENTS = {
    "overview": '[data-testid="stMetric"]:has-text("Memories")',
    "search": 'role=textbox[name="Query"]',
    "ranking_lab": 'role=button[name="Run comparison"]',
    "export_diff": '[data-testid="stMetric"]:has-text("Memories changed")',
    "curate": '[data-testid="stDataFrame"]',
    "graph": 'role=tab[name="Contradictions queue"]',
    "map": '[data-testid="stPlotlyChart"]',
    "decay": 'role=tab[name="At risk"]',
}


def _id(spec: PageSpec) -> str:
    return spec.url_path


def test_every_page_has_a_key_element() -> None:
    """Adding a page to the router adds its visit below; it needs its key element here."""
    assert sorted(KEY_ELEMENTS) == sorted(spec.url_path for spec in PAGES)


def test_the_menu_has_no_developer_items_and_the_tab_has_memlens_icon(visit: Visit) -> None:
    """No "Deploy" button, no rerun or clear-cache in the menu (`client.toolbarMode`); the
    favicon is memlens' own file, not Streamlit's."""
    visit.open("/")
    page = visit.page
    expect(page.locator('[data-testid="stAppDeployButton"]')).to_have_count(0)
    page.locator('[data-testid="stMainMenu"] button').click()
    menu = page.locator('[data-testid="stMainMenuPopover"]')
    expect(menu).to_contain_text("Print")
    for item in ("rerun", "clearCache", "autoRerun"):
        expect(menu.locator(f'[data-testid="stMainMenuItem-{item}"]')).to_have_count(0)
    icons = page.evaluate(
        "[...document.querySelectorAll('link[rel~=icon]')].map(link => link.href)")
    assert icons and all("/media/" in href for href in icons), icons
    favicon = page.request.get(icons[0])
    expected = (Path(__file__).resolve().parents[2] / "app_pages" / "favicon.png").read_bytes()
    assert favicon.ok and favicon.body() == expected
    visit.check()


@pytest.fixture(scope="module")
def fresh_server(demo_copy: DemoCopy, e2e_cache: Path,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server no browser has visited yet (nothing cached), on the demo copy."""
    log = tmp_path_factory.mktemp("e2e-logs") / "fresh-server.log"
    with serving(demo_copy.store, e2e_cache, log) as url:
        yield url


@pytest.mark.parametrize("spec", PAGES, ids=_id)
def test_every_page_by_its_url(browser: Browser, fresh_server: str, demo_copy: DemoCopy,
                               spec: PageSpec) -> None:
    """The page's URL typed into a new browser (a deep link) opens that page, not the
    default one, current in the sidebar, with the store picker naming the store; it shows its
    key element, names itself in the tab, and gets a screenshot in test-artifacts/."""
    with open_visit(browser, fresh_server) as visit:
        visit.open(spec.link)
        page = visit.page
        expect(page.locator("h2").first).to_have_text(spec.title)
        current = page.locator('[data-testid="stSidebarNavLink"][aria-current="page"]')
        expect(current).to_have_accessible_name(spec.title)
        expect(page.locator('[data-testid="stSidebar"] input[aria-label="Store"]')) \
            .to_have_value(str(demo_copy.store))
        expect(page.locator(KEY_ELEMENTS[spec.url_path]).first).to_be_visible()
        assert page.title() == spec.tab_title
        visit.check()
        visit.screenshot(spec.url_path)
