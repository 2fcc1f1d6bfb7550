"""Every page on a store of XSS payloads (tests/e2e/hostile_store.py), in Chromium: no script
runs (no dialog opens, `window.__pwned` stays undefined, no element a payload would create
exists, in the page or its iframes), the payloads read as text, and the page renders;
including graph tooltips, map hover text, the diff view and the curation table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from app_pages.widgets.routes import PAGES, PageSpec
from tests.e2e.browser import Visit, open_visit
from tests.e2e.hostile_store import TOPIC, HostileStore, build
from tests.e2e.server import serving
from tests.payloads import SCRIPT

#: Elements a payload would create if it were parsed as HTML, in any frame.
INJECTED = ('img[src="x"], svg[onload], a[href^="javascript:"], [onmouseover], '
            'script:not([src])')
#: Inline scripts the app itself has: none but those Streamlit and pyvis ship, which set
#: nothing like `__pwned` (checked too).


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, e2e_cache: Path) -> HostileStore:
    return build(tmp_path_factory.mktemp("e2e-hostile"), e2e_cache)


@pytest.fixture(scope="module")
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
            "|| e.textContent.includes('__pwned')).map(e => e.outerHTML.slice(0, 200))",
            INJECTED)
        assert injected == [], frame.url
    visit.check()  # no dialog, no console error, no exception box


def shows_as_text(visit: Visit, text: str = SCRIPT) -> None:
    expect(visit.page.get_by_text(text, exact=False).first).to_be_attached()


def overview(visit: Visit) -> None:
    chart = visit.page.locator('[data-testid="stPlotlyChart"]', has_text="By project")
    expect(chart.get_by_text(f"proj {SCRIPT}", exact=False)).to_have_count(1)


def search(visit: Visit) -> None:
    visit.type_in("Query", TOPIC)
    shows_as_text(visit)
    page = visit.page
    visit.act(page.locator('[data-testid="stExpander"] summary', has_text="Why this rank")
              .first.click)
    visit.act(page.get_by_role("button", name="Details").first.click)


def export_diff(visit: Visit) -> None:
    """Side A defaults to the newest export: the one with lone surrogates."""
    expect(visit.page.get_by_text("surrogates.ndjson", exact=False).first).to_be_visible()
    expect(visit.page.get_by_text("Changed: content").first).to_be_visible()


def curate(visit: Visit) -> None:
    page = visit.page
    box = page.locator('[data-testid="stDataFrame"]').first.bounding_box()
    assert box is not None
    for row in range(5):  # hover each hostile row's content cell: the grid's tooltip
        page.mouse.move(box["x"] + 400, box["y"] + 36 + 17 + 35 * row)
        page.wait_for_timeout(200)
    visit.act(lambda: page.mouse.click(box["x"] + 20, box["y"] + 36 + 17))
    visit.act(page.get_by_role("button", name="Preview").click)


def graph(visit: Visit) -> None:
    """Centre on the XSS memory and hover every node and edge: vis-network's tooltips."""
    visit.type_in("Find a memory", TOPIC)
    frame = visit.page.frame_locator("iframe").first
    expect(frame.locator("canvas").first).to_be_visible()
    iframe = next(f for f in visit.page.frames if f != visit.page.main_frame)
    points = iframe.evaluate(
        "() => Object.values(network.getPositions()).map(p => network.canvasToDOM(p))")
    canvas = visit.page.locator("iframe").first.bounding_box()
    assert canvas is not None and points
    tips = []
    for point in points:
        visit.page.mouse.move(canvas["x"] + point["x"], canvas["y"] + point["y"])
        visit.page.wait_for_timeout(400)
        tips.append(iframe.evaluate(
            "() => [...document.querySelectorAll('.vis-tooltip')].map(t => t.innerText)"
            ".join(' ')"))
    assert any(SCRIPT in tip for tip in tips), tips


def map_(visit: Visit) -> None:
    """Hover the points: plotly's hover labels hold the payloads as text."""
    page = visit.page
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    points = chart.locator(".scatterlayer .point")
    seen = []
    for i in range(min(points.count(), 15)):
        points.nth(i).hover(force=True)
        page.wait_for_timeout(150)
        seen.append(" ".join(chart.locator(".hoverlayer").all_inner_texts()))
    assert any("<script>" in text for text in seen), seen


def decay(visit: Visit) -> None:
    page = visit.page
    visit.act(page.get_by_role("tab", name="Ranking impact").click)
    visit.type_in("Query", TOPIC)


#: What to do on each page beyond opening it (every page needs an entry).
ACTIONS: dict[str, Callable[[Visit], None]] = {
    "overview": overview, "search": search, "ranking_lab": lambda visit: None,
    "export_diff": export_diff, "curate": curate, "graph": graph, "map": map_, "decay": decay,
}


def test_every_page_has_a_hostile_action() -> None:
    assert sorted(ACTIONS) == sorted(spec.url_path for spec in PAGES)


@pytest.mark.parametrize("spec", PAGES, ids=lambda spec: spec.url_path)
def test_no_payload_runs(browser: Browser, hostile_server: str, spec: PageSpec) -> None:
    with open_visit(browser, hostile_server) as visit:
        visit.open(f"/{spec.url_path}")
        expect(visit.page.locator("h2").first).to_have_text(spec.title)
        nothing_ran(visit)
        ACTIONS[spec.url_path](visit)
        nothing_ran(visit)
        visit.screenshot(f"hostile-{spec.url_path}")
