"""Every page on a store of XSS payloads (tests/e2e/hostile_store.py), in Chromium: no script
runs (no dialog opens, `window.__pwned` stays undefined, no element a payload would create
exists, in the page or its iframes), the payloads read as text, and the page renders;
including graph tooltips, map hover text, the diff view and the curation table.

The tests walk one browser page through the app, as a visitor does: the app opened at its
root, then each page reached by its sidebar link (the page's script runs as when its URL is
opened, and a payload that ran on an earlier page would still show: `window.__pwned`, the
dialogs and console errors are the page's since it opened). Following a link costs the
browser and the server about half of what a new page load does; test_pages.py opens every
page by its URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memlens_app.widgets.common.routes import PAGES, PageSpec
from tests.e2e.browser import Visit, open_visit
from tests.e2e.chromium import PLAYWRIGHT_MISSING
from tests.e2e.hostile_store import BEFORE_EXPORT, TOPIC, HostileStore, build
from tests.e2e.server import serving
from tests.payloads import IMG_ONERROR, SCRIPT, XSS

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

#: Elements a payload would create if it were parsed as HTML, in any frame (a script only
#: if it is the payload's: the app's own scripts hold payloads as escaped data).
INJECTED = ('img[src="x"], svg[onload], a[href^="javascript:"], [onmouseover], '
            'script:not([src])')
#: Where each node of the graph drawing is, in the iframe's pixels.
NODE_POSITIONS = """() => {
  const box = document.getElementById("graph").getBoundingClientRect();
  return Object.values(memlensNetwork.getPositions()).map(p => memlensNetwork.canvasToDOM(p))
    .map(p => ({x: box.left + p.x, y: box.top + p.y}));
}"""
#: Where each point of a plotly chart (its graph div) is, in the window's pixels: the map
#: draws with WebGL, so there is no element per point to hover.
POINT_POSITIONS = """g => {
  const r = g.getBoundingClientRect(), xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;
  return g._fullData.flatMap(t => Array.from(t.x || [], (x, i) => (
    {x: r.left + xa._offset + xa.l2p(x), y: r.top + ya._offset + ya.l2p(t.y[i])})));
}"""


# Session scope: set up once on the worker that runs this module (an xdist group), whatever
# else that worker runs between the module's tests.
@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory, e2e_cache: Path) -> HostileStore:
    return build(tmp_path_factory.mktemp("e2e-hostile"), e2e_cache)


@pytest.fixture(scope="session")
def hostile_server(hostile: HostileStore, e2e_cache: Path,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("e2e-logs") / "hostile-server.log"
    with serving(hostile.store, e2e_cache, log, tenant=hostile.tenant) as url:
        yield url


def nothing_ran(visit: Visit) -> None:
    """No payload ran or became an element, in the page or any of its frames."""
    for frame in visit.page.frames:
        assert frame.evaluate("typeof window.__pwned") == "undefined", frame.url
        injected = frame.evaluate(
            "sel => [...document.querySelectorAll(sel)].filter(e => e.tagName !== 'SCRIPT' "
            "|| e.textContent.trim() === 'window.__pwned=1').map(e => e.outerHTML.slice(0, 200))",
            INJECTED)
        assert injected == [], frame.url
    visit.check()  # no dialog, no console error, no exception box


def shows_as_text(visit: Visit, text: str = SCRIPT) -> None:
    expect(visit.page.get_by_text(text, exact=False).first).to_be_attached()


def overview(visit: Visit, hostile: HostileStore) -> None:
    """The bar charts name projects and agents on their axes: as text."""
    labels = visit.page.locator('[data-testid="stPlotlyChart"] .ytick text')
    assert f"proj {SCRIPT}" in labels.all_text_contents()


def search(visit: Visit, hostile: HostileStore) -> None:
    """The XSS memory first (the 1 MB one is shown on the other pages), its explanation
    and its details: every field, metadata included."""
    visit.type_in("Query", f"{TOPIC} edited")
    shows_as_text(visit)
    page = visit.page
    visit.reveal(page.locator('[data-testid="stExpander"] summary', has_text="Why this rank")
                 .first.click)
    # Streamlit names a widget's element after its key
    visit.act(page.locator(f".st-key-detail_{hostile.xss_id} button").click)
    expect(page.get_by_text("why: ", exact=False).first).to_be_visible()


def export_diff(visit: Visit, hostile: HostileStore) -> None:
    """Side A defaults to the newest export, the one with lone surrogates: refused in one
    line. The export before the XSS memory was edited: its old and new text side by side."""
    page = visit.page
    expect(page.get_by_text("holds a lone surrogate", exact=False)).to_be_visible()
    page.get_by_role("combobox", name="Export").click()
    visit.act(page.get_by_role("option", name=re.compile(f"^{BEFORE_EXPORT}")).click)
    expect(page.get_by_text("Changed: content", exact=True)).to_be_visible()
    codes = page.locator('[data-testid="stCode"]').all_text_contents()
    assert f"{TOPIC} {XSS}" in codes and f"{TOPIC} edited {XSS}" in codes, codes


def curate(visit: Visit, hostile: HostileStore) -> None:
    page = visit.page
    box = page.locator('[data-testid="stDataFrame"]').first.bounding_box()
    assert box is not None
    for row in range(5):  # hover each hostile row's content cell: the grid's tooltip
        page.mouse.move(box["x"] + 400, box["y"] + 36 + 17 + 35 * row)
        page.wait_for_timeout(200)
    visit.act(lambda: page.mouse.click(box["x"] + 20, box["y"] + 36 + 17))
    visit.act(page.get_by_role("button", name="Preview").click)
    nothing_ran(visit)
    # the Consolidate tab: a candidate of payload observations, its members and its draft
    visit.act(page.get_by_role("tab", name="Consolidate").click)
    panel = page.get_by_role("tabpanel", name="Consolidate")
    expect(panel.get_by_text(re.compile(r"^Candidate 1 · strength"))).to_be_visible()
    expect(panel.get_by_text(SCRIPT, exact=False).first).to_be_visible()
    draft = panel.get_by_role("textbox", name="Reflection (edit before accepting)")
    assert SCRIPT in draft.input_value()


def graph(visit: Visit, hostile: HostileStore) -> None:
    """Centre on the XSS memory and hover every node: vis-network's tooltips."""
    visit.act(visit.page.get_by_role("radio", name="Memory id").click)
    visit.type_in("Memory id", hostile.xss_id)
    frame = visit.page.frame_locator("iframe").first
    expect(frame.locator("canvas").first).to_be_visible()
    expect(frame.locator('body[data-ready="1"]')).to_be_attached()  # the layout settled
    iframe = next(f for f in visit.page.frames if f != visit.page.main_frame)
    points = iframe.evaluate(NODE_POSITIONS)
    visit.page.locator("iframe").first.scroll_into_view_if_needed()
    canvas = visit.page.locator("iframe").first.bounding_box()
    assert canvas is not None and points
    tips = []
    for point in points:
        visit.page.mouse.move(canvas["x"] + point["x"], canvas["y"] + point["y"])
        visit.page.wait_for_timeout(300)
        tips.append(iframe.evaluate(
            "() => [...document.querySelectorAll('.vis-tooltip')].map(t => t.innerText)"
            ".join(' ')"))
    assert any(SCRIPT in tip for tip in tips), tips


def map_(visit: Visit, hostile: HostileStore) -> None:
    """Hover the points: plotly's hover labels hold the payloads as text."""
    page = visit.page
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').first
    chart.scroll_into_view_if_needed()
    seen = []
    for point in chart.evaluate(POINT_POSITIONS):
        page.mouse.move(point["x"], point["y"])
        page.wait_for_timeout(150)
        seen.append(" ".join(page.locator(".hoverlayer").all_text_contents()))
    assert any(f"proj {SCRIPT}" in text for text in seen), seen
    assert page.locator(".hoverlayer a").count() == 0


def decay(visit: Visit, hostile: HostileStore) -> None:
    page = visit.page
    visit.act(page.get_by_role("tab", name="Ranking impact").click)
    visit.type_in("Query", TOPIC)


def agents(visit: Visit, hostile: HostileStore) -> None:
    """The agent, its session, its recall's query and its correction's note are payloads:
    the caption names the agent, memory use lists what it recalled, and the replay of its
    recall shows the query (in the picker and the caption) and what it sent, as text."""
    page = visit.page
    shows_as_text(visit, IMG_ONERROR)
    visit.act(page.get_by_role("tab", name="Memory use").click)
    use = page.get_by_role("tabpanel", name="Memory use")
    expect(use.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    visit.act(page.get_by_role("tab", name="Recall replay").click)
    replay = page.get_by_role("tabpanel", name="Recall replay")
    expect(replay.get_by_text(SCRIPT, exact=False).first).to_be_visible()
    expect(replay.locator('[data-testid="stDataFrame"]').first).to_be_visible()


#: What to do on each page beyond opening it (every page needs an entry).
ACTIONS: dict[str, Callable[[Visit, HostileStore], None]] = {
    "overview": overview, "search": search, "ranking_lab": lambda visit, hostile: None,
    "export_diff": export_diff, "curate": curate, "graph": graph, "map": map_, "decay": decay,
    "agents": agents,
}


def test_every_page_has_a_hostile_action() -> None:
    assert sorted(ACTIONS) == sorted(spec.url_path for spec in PAGES)


@pytest.fixture(scope="session")
def tour(context: BrowserContext, hostile_server: str) -> Iterator[Visit]:
    """One page on the hostile server, opened at the app's root (the default page), that
    the tests of this module walk from page to page."""
    with open_visit(context, hostile_server) as visit:
        visit.open("/")
        yield visit


def current_title(visit: Visit) -> str:
    """The title of the page the sidebar marks current."""
    current = visit.page.locator('[data-testid="stSidebarNavLink"][aria-current="page"]')
    return current.inner_text().strip()


@pytest.mark.parametrize("spec", PAGES, ids=lambda spec: spec.url_path)
def test_no_payload_runs(tour: Visit, hostile: HostileStore, spec: PageSpec) -> None:
    visit = tour
    if current_title(visit) != spec.title:
        visit.go_to(spec.title)
    expect(visit.page.locator("h2").first).to_have_text(spec.title)
    nothing_ran(visit)
    ACTIONS[spec.url_path](visit, hostile)
    nothing_ran(visit)
    visit.screenshot(f"hostile-{spec.url_path}")
