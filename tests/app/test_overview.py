"""AppTest of the router (memlens_app/main.py) and the Overview page against real stores in
tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.model.config import Settings
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")


@pytest.fixture
def seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    uri = str(tmp_path / "store")
    monkeypatch.setenv("MEMLENS_STORE", uri)
    store = MemoryStore.open(settings=Settings.from_env())
    memories = [
        Memory.new("Auth refresh race fixed with a mutex", "decision", project="atlas",
                   agent="mason"),
        Memory.new("Two tabs refreshing tokens logged users out", "observation",
                   project="atlas", agent="iris"),
        Memory.new("<script>alert('x')</script> prefers terse answers", "preference",
                   project="herd", agent="steve"),
        Memory.new("Old caching decision", "decision", project="herd", status="superseded"),
    ]
    store.add(memories)
    store.edges.add([Edge.new(memories[1].id, memories[0].id, "caused")])
    return store


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.model
def test_overview_shows_counts_charts_and_audit(seeded: MemoryStore) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.header[0].value == "Overview"
    metrics = _metrics(at)
    assert metrics["Memories"] == "4" and metrics["Active"] == "3"
    assert metrics["Edges"] == "1" and metrics["Pending embeddings"] == "0"
    assert len(at.get("plotly_chart")) == 5
    assert at.sidebar.text_input[0].value == seeded.uri
    assert at.sidebar.selectbox[0].value == "default"
    assert len(at.dataframe) == 1  # the audit table


@pytest.mark.model
def test_sidebar_switches_tenant(seeded: MemoryStore, tmp_path: Path) -> None:
    other = MemoryStore.open(seeded.uri, tenant="acme", embedder=seeded.embedder)
    other.add([Memory.new("acme memory", "fact")])
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.selectbox[0].select("acme").run()
    assert not at.exception
    assert _metrics(at)["Memories"] == "1"


def test_empty_store_offers_to_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_STORE", str(tmp_path / "empty"))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert "has no memories yet" in at.info[0].value
    assert at.button[0].label == "Seed the demo corpus"


def test_bad_store_location_is_an_error_not_a_crash(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a-file"
    path.write_text("x")
    monkeypatch.setenv("MEMLENS_STORE", str(path))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert "is a file, not a folder" in at.sidebar.error[0].value


def test_the_checkouts_app_py_runs_the_packaged_router(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`streamlit run app.py` in a checkout still works: the shim runs memlens_app/main.py,
    which finds its pages in the package, not beside the entry script."""
    monkeypatch.setenv("MEMLENS_STORE", str(tmp_path / "none"))
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    at = AppTest.from_file(str(Path(APP).parents[1] / "app.py"), default_timeout=60).run()
    assert not at.exception and at.header[0].value == "Overview"
    at.switch_page("memlens_app/page_scripts/export_diff.py").run()
    assert not at.exception and at.header[0].value == "Export Diff"


def test_the_router_routes_to_every_page_script_and_only_to_those() -> None:
    """The modules of memlens_app/page_scripts/ are pages; widgets live in memlens_app/widgets/."""
    from memlens_app.widgets.common.routes import PAGES

    routed = {spec.script for spec in PAGES}  # main.py builds its navigation from PAGES
    scripts = {f"page_scripts/{p.name}" for p in (Path(APP).parent / "page_scripts").glob("*.py")
               if p.name != "__init__.py"}
    assert routed == scripts == {"page_scripts/overview.py", "page_scripts/search.py",
                                 "page_scripts/ranking_lab.py", "page_scripts/export_diff.py",
                                 "page_scripts/curate.py", "page_scripts/graph.py",
                                 "page_scripts/decay.py", "page_scripts/map.py",
                                 "page_scripts/agents.py"}


@pytest.mark.model  # the Search page embeds its default query with the real model
@pytest.mark.parametrize("page, header", [
    ("page_scripts/search.py", "Search"), ("page_scripts/ranking_lab.py", "Ranking Lab"),
    ("page_scripts/export_diff.py", "Export Diff"), ("page_scripts/decay.py", "Decay"),
])
def test_every_page_opens_through_the_router(seeded: MemoryStore, page: str,
                                             header: str) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(page).run()
    assert not at.exception
    assert at.header[0].value == header
    assert at.sidebar.text_input[0].value == seeded.uri  # the router's sidebar ran too


@pytest.mark.model
def test_overview_says_a_write_that_died_half_way_was_rolled_back(seeded: MemoryStore) -> None:
    from memory_core.store.lock import WriteLock

    before = seeded.table_versions()
    seeded.add([Memory.new("written by an import that was then killed", "fact")])
    # what a killed writer leaves: its journal of the versions before it, and no lock held
    WriteLock.of(Path(seeded.uri)).write_journal("import", before)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    [warning] = [w.value for w in at.warning if "interrupted write" in w.value]
    assert "rolled back" in warning
    assert _metrics(at)["Memories"] == "4"


def test_overview_says_the_store_outgrew_its_indexes_and_how_to_fix_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app_embedder: FakeEmbedder) -> None:
    monkeypatch.setattr("memory_core.store.index_health.UNINDEXED_ROWS", 5)
    uri = str(tmp_path / "big store")
    store = MemoryStore.open(uri, tenant="acme corp", embedder=app_embedder)
    store.add([Memory.new(f"note {i}", "fact") for i in range(6)])
    monkeypatch.setenv("MEMLENS_STORE", uri)
    monkeypatch.setenv("MEMLENS_TENANT", "acme corp")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    [warning] = [w.value for w in at.warning if "outgrown" in w.value]
    assert "no index yet on tenant" in warning and "6 rows" in warning
    assert f"`memlens index --store '{uri}' --tenant 'acme corp'`" in warning
    from memory_core.store.indexes import ensure_indexes

    ensure_indexes(store)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not [w for w in at.warning if "outgrown" in w.value]
