"""One real task per page, done as a user does it in Chromium on the demo copy: a search
with its explanation, a Ranking Lab run, an export diff, the graph around a memory, a map
query and its clusters handed to Curate, decay's ranking impact, and an archive undone."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.browser import Visit
from tests.e2e.chromium import PLAYWRIGHT_MISSING
from tests.e2e.demo_copy import DemoCopy

if TYPE_CHECKING:
    from playwright.sync_api import Locator

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

QUERY = "why did we move session caching off Redis?"


def _metric(visit: Visit, label: str) -> Locator:
    return visit.page.locator('[data-testid="stMetric"]', has_text=label) \
        .locator('[data-testid="stMetricValue"]')


def test_search_shows_results_and_why_each_ranks(visit: Visit) -> None:
    visit.open("/search")
    visit.type_in("Query", QUERY)
    page = visit.page
    expect(page.get_by_text(re.compile(r"^10 results in \d+ ms$"))).to_be_visible()
    expect(page.get_by_role("button", name="Details")).to_have_count(10)
    visit.act(page.locator('[data-testid="stExpander"] summary', has_text="Why this rank")
              .first.click)
    why = page.locator('[data-testid="stExpander"]', has_text="Why this rank").first
    expect(why.locator('[data-testid="stMetric"]', has_text="Final score")).to_be_visible()
    expect(why.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible()
    visit.check()
    visit.screenshot("search-results")


def test_ranking_lab_runs_a_comparison(visit: Visit) -> None:
    visit.open("/ranking_lab")
    page = visit.page
    expect(page.get_by_text(re.compile(r"^\d+ queries from"))).to_be_visible()
    visit.pick("Only queries tagged", "ci")  # 3 queries: a run in seconds
    visit.act(page.get_by_role("button", name="Run comparison").click)
    expect(page.get_by_text(re.compile(r"^\d+ queries · A [\d.]+ s · B [\d.]+ s$"))) \
        .to_be_visible()
    expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 3
    visit.check()
    visit.screenshot("ranking_lab-run")


def test_export_diff_shows_the_archived_memory(visit: Visit, demo_copy: DemoCopy) -> None:
    """Side A is the export taken before one memory was archived, side B the live store."""
    visit.open("/export_diff")
    expect(_metric(visit, "Memories changed")).to_have_text("1")
    expect(_metric(visit, "Memories added")).to_have_text("0")
    page = visit.page
    expect(page.get_by_text("Changed: status")).to_be_visible()
    codes = page.locator('[data-testid="stCode"]')
    expect(codes.filter(has_text=re.compile(r"^active$"))).to_have_count(1)
    expect(codes.filter(has_text=re.compile(r"^archived$"))).to_have_count(1)
    expect(page.get_by_role("combobox", name="Record")) \
        .to_have_value(f"memory {demo_copy.archived}")
    visit.check()


def test_graph_around_a_memory(visit: Visit) -> None:
    visit.open("/graph")
    visit.type_in("Find a memory", QUERY)
    page = visit.page
    expect(page.get_by_text(re.compile(r"^\d+ memories, \d+ edges · hover"))).to_be_visible()
    drawing = page.frame_locator("iframe").first
    expect(drawing.locator("canvas").first).to_be_visible()
    expect(page.get_by_role("tab", name="Lineage")).to_be_visible()
    visit.check()
    visit.screenshot("graph-focus")


def test_map_query_and_a_cluster_handed_to_curate(visit: Visit) -> None:
    visit.open("/map")
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
    visit.check()


def test_decay_ranking_impact(visit: Visit) -> None:
    visit.open("/decay")
    page = visit.page
    visit.act(page.get_by_role("tab", name="Ranking impact").click)
    visit.type_in("Query", QUERY)
    panel = page.get_by_role("tabpanel", name="Ranking impact")
    expect(panel.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    visit.check()
    visit.screenshot("decay-impact")


def test_curate_archive_then_undo(visit: Visit, demo_copy: DemoCopy) -> None:
    """Archive the first listed memory (its row's checkbox), confirm, then undo: the
    memory is active again on disk, and the audit log holds both batches."""
    visit.open("/curate")
    page = visit.page
    table = page.locator('[data-testid="stDataFrame"]').first
    box = table.bounding_box()
    assert box is not None
    # row 1's checkbox: the table is drawn on a canvas, rows 35 px under a 36 px header
    visit.act(lambda: page.mouse.click(box["x"] + 20, box["y"] + 36 + 17))
    expect(page.get_by_text("200 listed · 1 selected")).to_be_visible()
    visit.act(page.get_by_role("button", name="Preview").click)
    visit.act(page.get_by_role("button", name="Confirm: archive 1 memory").click)
    store = demo_copy.open()
    [archived] = [e for e in store.audit_entries(limit=5) if e.action == "archive"][:1]
    memory_id = archived.target_ids[0]
    assert store.get(memory_id).status == "archived"
    expect(page.locator('[data-testid="stAlertContentSuccess"]').first).to_be_visible()
    visit.act(page.get_by_role("button", name="Undo").first.click)
    store = demo_copy.open()  # a handle reads the table version it opened
    assert store.get(memory_id).status == "active"
    assert store.audit_entries(limit=1)[0].action == "undo"
    visit.check()
    visit.screenshot("curate-undo")
