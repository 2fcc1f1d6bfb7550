"""A consolidation done in Chromium as a user does it, on the demo copy's server: open the
Curate page's Consolidate tab, accept the strongest candidate's draft (preview, confirm), open
the new reflection in Graph and see its sources there, find the reflection in Search, and
colour the Map by consolidation.

The accept is undone at the end (the engine's `undo`), so the other browser tests see the
demo copy as it was; the module sorts after test_pages.py, whose Export Diff task counts the
changes on it.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.browser import Visit
from tests.e2e.chromium import PLAYWRIGHT_MISSING
from tests.e2e.demo_copy import DemoCopy

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect


def test_accept_a_candidate_then_find_the_reflection_in_search_and_its_sources_in_graph(
        visit: Visit, demo_copy: DemoCopy) -> None:
    from memory_core import Filter, undo

    page = visit.page
    visit.open("/curate")
    visit.act(page.get_by_role("tab", name="Consolidate").click)
    panel = page.get_by_role("tabpanel", name="Consolidate")
    expect(panel.get_by_text(re.compile(r"^Candidate 1 · strength"))).to_be_visible()
    expect(panel.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    visit.check()
    visit.screenshot("curate-consolidate")
    draft = panel.get_by_role("textbox", name="Reflection (edit before accepting)")
    content = draft.input_value().strip()
    assert content
    before = {m.id for m in demo_copy.open().list(Filter(memory_type="reflection"))}

    visit.act(panel.get_by_role("button", name="Preview accept").click)
    expect(panel.get_by_text(re.compile(r"^Preview: consolidate: would change"))).to_be_visible()
    confirm = panel.get_by_role("button", name=re.compile(r"^Confirm: consolidate \d+ memories$"))
    visit.act(confirm.click)
    expect(panel.locator('[data-testid="stAlertContentSuccess"]').first) \
        .to_contain_text("consolidate: changed")
    store = demo_copy.open()
    [reflection] = [m for m in store.list(Filter(memory_type="reflection"))
                    if m.id not in before]
    assert reflection.content == content and reflection.metadata["method"] == "rule_based"
    sources = [e.target_id for e in store.edges.list(memory_id=reflection.id)
               if e.relation == "derived_from" and e.source_id == reflection.id]
    [batch] = [e.batch_id for e in store.audit.entries(limit=5) if e.action == "consolidate"][:1]
    try:
        panel.locator('[data-testid="stAlertContentSuccess"]').first.scroll_into_view_if_needed()
        visit.screenshot("curate-consolidate-accepted")
        visit.act(page.get_by_role("button", name="The reflection in Graph").click)
        expect(page.locator("h2").first).to_have_text("Graph")
        expect(page.get_by_text(re.compile(r"^Reflection · method rule_based · "
                                           rf"{len(sources)} sources"))).to_be_visible()
        expect(page.get_by_text(f"Its sources ({len(sources)})")).to_be_visible()
        known = store.get_many(sources)
        first_line = " ".join(known[sources[0]].content.split())[:40]
        expect(page.locator('[data-testid="stMarkdownContainer"]',
                            has_text=first_line).first).to_be_visible()
        visit.check()
        visit.screenshot("graph-reflection")

        visit.go_to("Search")
        visit.type_in("Query", content[:200])
        expect(page.get_by_text(f"id {reflection.id}", exact=True)).to_be_visible()
        visit.check()
        visit.screenshot("search-reflection")

        visit.go_to("Map")
        visit.act(page.get_by_role("radio", name="Consolidation", exact=True).click)
        chart = page.locator('[data-testid="stPlotlyChart"]').first
        for name in ("candidate", "consolidated", "neither"):
            expect(chart.locator(".legendtext", has_text=name)).to_have_count(1)
        expect(page.get_by_text(re.compile(r"^Consolidation: \d+ in a candidate"))) \
            .to_be_visible()
        visit.check()
        visit.screenshot("map-consolidation")
    finally:
        undo(demo_copy.open(), batch)
    assert reflection.id not in demo_copy.open().get_many([reflection.id])
