"""The sidebar's Store box: only the stores the deployment allows, never created by opening,
and a failure is one line naming what the visitor typed (issue 20, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")


@pytest.fixture
def configured(tmp_path: Path, app_embedder: FakeEmbedder,
               monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    """The configured store (MEMLENS_STORE), holding one memory."""
    store = MemoryStore.open(str(tmp_path / "conf"), embedder=app_embedder)
    store.add([Memory.new("Cache keys include the lockfile hash", "decision")])
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _type_store(uri: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.text_input[0].set_value(uri).run()
    assert not at.exception
    return at


def test_a_store_outside_the_list_is_refused_and_never_created(configured: MemoryStore,
                                                                tmp_path: Path) -> None:
    typed = tmp_path / "made-up"
    at = _type_store(str(typed))
    [error] = [e.value for e in at.sidebar.error]
    assert "is not one this app may open" in error and "MEMLENS\\_STORES" in error
    assert not typed.exists()
    assert not at.metric  # the page stopped


def test_a_listed_store_that_does_not_exist_is_not_created(
        configured: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed = tmp_path / "listed"
    monkeypatch.setenv("MEMLENS_STORES", f"{tmp_path / 'elsewhere'},{listed}")
    at = _type_store(str(listed))
    [error] = [e.value for e in at.sidebar.error]
    assert "there is no memlens store at" in error
    assert not listed.exists()


@pytest.mark.parametrize("typed", ["/proc/self", "/proc/self/fd", "/etc/passwd"])
@pytest.mark.parametrize("listed", [False, True])
def test_odd_paths_are_one_clear_line_without_server_paths(
        configured: MemoryStore, monkeypatch: pytest.MonkeyPatch, typed: str,
        listed: bool) -> None:
    if listed:  # even an operator's mistake shows no traceback and no library paths
        monkeypatch.setenv("MEMLENS_STORES", typed)
    at = _type_store(typed)
    [error] = [e.value for e in at.sidebar.error]
    assert typed.replace("/", "") in error.replace("/", "").replace("\\", "")
    assert "\n" not in error
    for leak in ("/root", ".cargo", "lance", "Traceback", configured.uri):
        assert leak not in error


def test_a_listed_store_opens_however_it_is_spelt(configured: MemoryStore, tmp_path: Path,
                                                  app_embedder: FakeEmbedder,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    other = MemoryStore.open(str(tmp_path / "other"), embedder=app_embedder)
    other.add([Memory.new("one", "fact"), Memory.new("two", "fact")])
    monkeypatch.setenv("MEMLENS_STORES", f"{tmp_path / 'x'}:{tmp_path / 'other'}/")
    at = _type_store(str(tmp_path / "." / "other"))
    assert not at.sidebar.error
    assert {m.label: m.value for m in at.metric}["Memories"] == "2"


def test_only_the_seed_button_creates_the_configured_store(
        tmp_path: Path, app_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "fresh"
    monkeypatch.setenv("MEMLENS_STORE", str(missing))
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and not at.sidebar.error
    assert "has no memories yet" in at.info[0].value
    for page in ("page_scripts/search.py", "page_scripts/ranking_lab.py",
                 "page_scripts/export_diff.py", "page_scripts/decay.py", "page_scripts/map.py",
                 "page_scripts/overview.py"):
        at.switch_page(page).run()
        assert not at.exception
    assert not missing.exists()  # looking at every page created nothing
    at.button[0].click().run()
    assert not at.exception
    assert int({m.label: m.value for m in at.metric}["Memories"]) > 1000
    assert app_embedder.calls  # the demo was embedded (by the fake embedder)
