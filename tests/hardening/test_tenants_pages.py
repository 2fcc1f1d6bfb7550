"""Every page (memlens_app/widgets/common/routes.py) opened on one tenant of the store whose two
tenants share memory ids and texts shows nothing of the other tenant: no element the page
sends to the browser (text, tables, charts, graph HTML, widget options) holds the other
tenant's marker. One AppTest per tenant visits every page once; Search also runs a query,
Curate opens its Consolidate tab, the Map colours by consolidation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memlens_app.widgets.common.routes import PAGES
from tests.hardening.isolation import two_tenants, use_fast_stand_ins
from tests.hardening.tenants import MARK, OWN_ID, TENANTS, TwoTenants, other, solo_id

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")
#: Pages that show the chosen tenant's records here (so their check is not vacuous); the
#: Ranking Lab and Export Diff need a query set or export files first: their tenant scope
#: is driven in tests/app/test_tenant_scope.py.
SHOWS_OWN = {"page_scripts/overview.py", "page_scripts/search.py", "page_scripts/curate.py",
             "page_scripts/decay.py", "page_scripts/map.py", "page_scripts/graph.py",
             "page_scripts/agents.py"}


def _protos(node: Any) -> Iterator[str]:
    """The text of every element under `node`, as the protobuf the browser would get."""
    proto = getattr(node, "proto", None)
    if proto is not None:
        yield str(proto)
    children = getattr(node, "children", None) or {}
    for child in children.values():
        yield from _protos(child)


def sent(at: AppTest) -> str:
    """Everything the page sent (main area and sidebar)."""
    return "\n".join(_protos(at._tree))


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> TwoTenants:
    return two_tenants(tmp_path_factory)


@pytest.fixture
def app_on(two: TwoTenants, monkeypatch: pytest.MonkeyPatch) -> TwoTenants:
    import streamlit as st

    import memlens_app.widgets.common.state as state

    use_fast_stand_ins(monkeypatch)
    monkeypatch.setattr(state, "load_embedder", lambda settings=None: two.embedder)
    monkeypatch.setenv("MEMLENS_STORE", two.uri)
    monkeypatch.setenv("MEMLENS_READ_ONLY", "1")  # pages only read here
    st.cache_resource.clear()
    st.cache_data.clear()
    return two


def test_every_page_is_visited() -> None:
    assert {p.script for p in PAGES} >= SHOWS_OWN
    assert len(PAGES) == 9, "a new page: check SHOWS_OWN and that it is visited below"


@pytest.mark.parametrize("tenant", TENANTS)
def test_pages_show_only_the_tenants_records(app_on: TwoTenants, tenant: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_TENANT", tenant)
    theirs, mine = MARK[other(tenant)], MARK[tenant]
    at = AppTest.from_file(APP, default_timeout=90).run()
    assert at.sidebar.selectbox[0].value == tenant
    for page in PAGES:
        at.switch_page(page.script).run()
        assert not at.exception, (page.script, at.exception)
        if page.script == "page_scripts/search.py":
            at.text_input(key="search_query").input("launch code vault").run()
        if page.script == "page_scripts/graph.py":
            at.segmented_control(key="graph_focus_by").set_value("id").run()
            at.text_input(key="graph_focus_id").input(OWN_ID).run()
        if page.script == "page_scripts/curate.py":  # the Consolidate tab runs only when open
            at.session_state["curate_tab"] = "Consolidate"
            at.run()
            assert "Evidence changed" in [h.value for h in at.subheader]
        if page.script == "page_scripts/map.py":
            at.button_group(key="map_colour").set_value("consolidation").run()
        text = sent(at)
        assert theirs not in text and solo_id(other(tenant)) not in text, page.script
        if page.script in SHOWS_OWN:
            assert mine in text, f"{page.script} shows nothing of {tenant}: the check is vacuous"
