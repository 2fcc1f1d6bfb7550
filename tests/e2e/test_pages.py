"""Every page of the router in Chromium, visited once on the demo copy's server: opened by
its URL in a new browser (a deep link), it is that page, current in the sidebar, with the
store picker, its key element, its name in the browser tab, no exception box and no console
error, and a screenshot; then one real task is done on it as a user does it (`TASKS`): the
app's menu and favicon, a search with its explanation, a Ranking Lab run, an export diff, an
archive undone, the graph around a memory, a map query and its clusters handed to Curate,
and decay's ranking impact.

One visit per page: the page checks and its task share the page load (a page load is most
of a browser test's time). The visits run in `ORDER`: Curate's task is the only one that
writes (an archive, undone), so it comes last and Export Diff still sees exactly the one
change `demo_copy` made.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memlens_app.widgets.common.routes import PAGES, PageSpec
from tests.e2e.browser import Visit
from tests.e2e.chromium import PLAYWRIGHT_MISSING
from tests.e2e.demo_copy import DemoCopy

if TYPE_CHECKING:
    from playwright.sync_api import Locator

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

QUERY = "why did we move session caching off Redis?"
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
    "agents": 'role=tab[name="Recall replay"]',
}


def _metric(visit: Visit, label: str) -> Locator:
    return visit.page.locator('[data-testid="stMetric"]', has_text=label) \
        .locator('[data-testid="stMetricValue"]')


def menu_and_favicon(visit: Visit, demo_copy: DemoCopy) -> None:
    """No "Deploy" button, no rerun or clear-cache in the menu (`client.toolbarMode`); the
    favicon is memlens' own file, not Streamlit's."""
    page = visit.page
    expect(page.locator('[data-testid="stAppDeployButton"]')).to_have_count(0)
    page.locator('[data-testid="stMainMenu"] button').click()
    menu = page.locator('[data-testid="stMainMenuPopover"]')
    expect(menu).to_contain_text("Print")
    for item in ("rerun", "clearCache", "autoRerun"):
        expect(menu.locator(f'[data-testid="stMainMenuItem-{item}"]')).to_have_count(0)
    page.keyboard.press("Escape")
    icons = page.evaluate(
        "[...document.querySelectorAll('link[rel~=icon]')].map(link => link.href)")
    assert icons and all("/media/" in href for href in icons), icons
    favicon = page.request.get(icons[0])
    expected = (Path(__file__).resolve().parents[2] / "memlens_app" / "favicon.png").read_bytes()
    assert favicon.ok and favicon.body() == expected


def search_and_why(visit: Visit, demo_copy: DemoCopy) -> None:
    """Ten results, and the first one's "Why this rank": its final score and its chart."""
    visit.type_in("Query", QUERY)
    page = visit.page
    expect(page.get_by_text(re.compile(r"^10 results in \d+ ms$"))).to_be_visible()
    expect(page.get_by_role("button", name="Details")).to_have_count(10)
    visit.reveal(page.locator('[data-testid="stExpander"] summary', has_text="Why this rank")
                 .first.click)
    why = page.locator('[data-testid="stExpander"]', has_text="Why this rank").first
    expect(why.locator('[data-testid="stMetric"]', has_text="Final score")).to_be_visible()
    expect(why.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible()
    visit.screenshot("search-results")


def lab_comparison(visit: Visit, demo_copy: DemoCopy) -> None:
    page = visit.page
    expect(page.get_by_text(re.compile(r"^\d+ queries from"))).to_be_visible()
    visit.pick("Only queries tagged", "ci")  # 3 queries: a run in seconds
    visit.act(page.get_by_role("button", name="Run comparison").click)
    expect(page.get_by_text(re.compile(r"^\d+ queries · A [\d.]+ s · B [\d.]+ s$"))) \
        .to_be_visible()
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 3
    visit.screenshot("ranking_lab-run")


def the_archived_memory_in_the_diff(visit: Visit, demo_copy: DemoCopy) -> None:
    """Side A is the export taken before one memory was archived, side B the live store."""
    expect(_metric(visit, "Memories changed")).to_have_text("1")
    expect(_metric(visit, "Memories added")).to_have_text("0")
    page = visit.page
    expect(page.get_by_text("Changed: status")).to_be_visible()
    codes = page.locator('[data-testid="stCode"]')
    expect(codes.filter(has_text=re.compile(r"^active$"))).to_have_count(1)
    expect(codes.filter(has_text=re.compile(r"^archived$"))).to_have_count(1)
    expect(page.get_by_role("combobox", name="Record")) \
        .to_have_value(f"memory {demo_copy.archived}")


def archive_then_undo(visit: Visit, demo_copy: DemoCopy) -> None:
    """Archive the first listed memory (its row's checkbox), confirm, then undo: the
    memory is active again on disk, and the audit log holds both batches."""
    page = visit.page
    table = page.locator('[data-testid="stDataFrame"]').first
    box = table.bounding_box()
    assert box is not None
    # row 1's checkbox: the table is drawn on a canvas, rows 35 px under a 36 px header
    visit.act(lambda: page.mouse.click(box["x"] + 20, box["y"] + 36 + 17))
    expect(page.get_by_text("200 listed · 1 selected")).to_be_visible()
    visit.act(page.get_by_role("button", name="Preview").click)
    visit.act(page.get_by_role("button", name="Confirm: archive 1 memory").click)
    expect(page.locator('[data-testid="stAlertContentSuccess"]').first).to_be_visible()
    store = demo_copy.open()
    [archived] = [e for e in store.audit.entries(limit=5) if e.action == "archive"][:1]
    memory_id = archived.target_ids[0]
    assert store.get(memory_id).status == "archived"
    visit.act(page.get_by_role("button", name="Undo").first.click)
    # under a loaded CI machine the undo's rerun can outlast `act`'s wait: give it time
    deadline = time.monotonic() + 30
    while demo_copy.open().get(memory_id).status != "active" and time.monotonic() < deadline:
        time.sleep(0.5)
    store = demo_copy.open()  # a handle reads the table version it opened
    assert store.get(memory_id).status == "active"
    assert store.audit.entries(limit=1)[0].action == "undo"
    visit.screenshot("curate-undo")


def graph_around_a_memory(visit: Visit, demo_copy: DemoCopy) -> None:
    visit.type_in("Find a memory", QUERY)
    page = visit.page
    expect(page.get_by_text(re.compile(r"^\d+ memories, \d+ edges · hover"))).to_be_visible()
    drawing = page.frame_locator("iframe").first
    expect(drawing.locator("canvas").first).to_be_visible()
    expect(page.get_by_role("tab", name="Lineage")).to_be_visible()
    visit.screenshot("graph-focus")


def map_query_and_clusters_to_curate(visit: Visit, demo_copy: DemoCopy) -> None:
    page = visit.page
    visit.type_in("Query", QUERY)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    expect(chart.locator(".legendtext", has_text="query")).to_have_count(1)
    visit.pick("Add whole clusters")
    handover = page.get_by_role("button", name=re.compile(r"^Open \d+ in Curate$"))
    count = int(re.findall(r"\d+", handover.inner_text())[0])
    visit.act(handover.click)
    expect(page.locator("h2").first).to_have_text("Curate")
    expect(page.get_by_text(f"{count} listed · {count} selected")).to_be_visible()


def decay_ranking_impact(visit: Visit, demo_copy: DemoCopy) -> None:
    page = visit.page
    visit.act(page.get_by_role("tab", name="Ranking impact").click)
    visit.type_in("Query", QUERY)
    panel = page.get_by_role("tabpanel", name="Ranking impact")
    expect(panel.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    visit.screenshot("decay-impact")


def replay_after_an_archive(visit: Visit, demo_copy: DemoCopy) -> None:
    """An agent recalls; one memory it was sent is archived; the Agents page replays the
    recall (the newest, picked first) and says the memory left, by whom and in which batch.
    The memory is restored afterwards, so Curate's task sees the store as it was."""
    from memory_core import archive, recall, restore

    store = demo_copy.open()
    sent = recall(store, QUERY, limit=3, actor="e2e-agent", session_id="e2e")
    gone = sent.items[0]["id"]
    report = archive(store, [gone], reason="e2e: replay explains this")
    try:
        visit.open("/agents")
        page = visit.page
        visit.act(page.get_by_role("tab", name="Recall replay").click)
        panel = page.get_by_role("tabpanel", name="Recall replay")
        expect(panel.get_by_text(re.compile(r"e2e-agent"))).not_to_have_count(0)
        why = panel.locator('[data-testid="stMarkdownContainer"]', has_text="archived since")
        expect(why.first).to_contain_text(gone)
        expect(why.first).to_contain_text(f"in batch {report.batch_id}")
        visit.screenshot("agents-replay")
    finally:
        restore(store, [gone], reason="e2e: put back for the next tasks")


#: The task done on each page after its checks (every page needs one).
TASKS: dict[str, Callable[[Visit, DemoCopy], None]] = {
    "overview": menu_and_favicon, "search": search_and_why, "ranking_lab": lab_comparison,
    "export_diff": the_archived_memory_in_the_diff, "curate": archive_then_undo,
    "graph": graph_around_a_memory, "map": map_query_and_clusters_to_curate,
    "decay": decay_ranking_impact, "agents": replay_after_an_archive,
}
#: The pages in the router's order, but Curate (whose task writes) last.
ORDER = sorted(PAGES, key=lambda spec: spec.url_path == "curate")


def test_every_page_has_a_key_element_and_a_task() -> None:
    """Adding a page to the router adds its visit below; it needs its key element and its
    task here."""
    assert sorted(KEY_ELEMENTS) == sorted(TASKS) == sorted(spec.url_path for spec in PAGES)


@pytest.mark.parametrize("spec", ORDER, ids=lambda spec: spec.url_path)
def test_every_page_by_its_url_then_its_task(visit: Visit, demo_copy: DemoCopy,
                                             spec: PageSpec) -> None:
    """The page's URL typed into a new browser (a deep link) opens that page, not the
    default one, current in the sidebar, with the store picker naming the store; it shows its
    key element, names itself in the tab, and gets a screenshot in test-artifacts/. Then its
    task, after which the page still shows no exception box, console error or dialog."""
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
    TASKS[spec.url_path](visit, demo_copy)
    visit.check()
