"""AppTest of read-only mode: no enabled write control, and a caption saying why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")
SEED = "Seed the demo corpus"
ENV_NOTICE = "read-only: MEMLENS_READ_ONLY is set, so this app cannot seed the demo corpus."


def _run(uri: str, monkeypatch: pytest.MonkeyPatch, *, read_only: bool = True) -> AppTest:
    monkeypatch.setenv("MEMLENS_STORE", uri)
    if read_only:
        monkeypatch.setenv("MEMLENS_READ_ONLY", "1")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    return at


def _seed_buttons(at: AppTest) -> list[bool]:
    """Whether each seed button is disabled."""
    return [b.disabled for b in at.button if b.label == SEED]


def _captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def test_empty_store_read_only_disables_seeding_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app_embedder: FakeEmbedder) -> None:
    uri = str(tmp_path / "store")
    store = MemoryStore.open(uri, embedder=app_embedder)  # exists, no memories
    before = store.table_versions()
    at = _run(uri, monkeypatch)
    assert "has no memories yet" in at.info[0].value
    assert _seed_buttons(at) == [True]
    assert ENV_NOTICE in _captions(at)
    assert "read-only: MEMLENS_READ_ONLY is set" in [c.value for c in at.sidebar.caption]
    assert store.table_versions() == before


def test_missing_store_read_only_is_not_offered_to_be_created(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app_embedder: FakeEmbedder) -> None:
    uri = tmp_path / "none"
    at = _run(str(uri), monkeypatch)
    assert "the app is read-only, so it cannot create it" in at.info[0].value
    assert _seed_buttons(at) == [True]
    assert ENV_NOTICE in _captions(at)
    assert not uri.exists()


def test_started_with_read_only_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app_embedder: FakeEmbedder) -> None:
    """`memlens serve --read-only` passes `--read-only` after `--` (and MEMLENS_READ_ONLY);
    the flag alone is enough."""
    uri = str(tmp_path / "store")
    MemoryStore.open(uri, embedder=app_embedder)
    monkeypatch.setattr(sys, "argv", ["app.py", "--store", uri, "--read-only"])
    at = _run(uri, monkeypatch, read_only=False)
    assert _seed_buttons(at) == [True]
    assert ("read-only: the app was started with --read-only, so this app cannot seed the "
            "demo corpus.") in _captions(at)


def test_writable_store_offers_seeding_without_a_notice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app_embedder: FakeEmbedder) -> None:
    uri = str(tmp_path / "store")
    MemoryStore.open(uri, embedder=app_embedder)
    at = _run(uri, monkeypatch, read_only=False)
    assert _seed_buttons(at) == [False]
    assert not [c for c in _captions(at) + [c.value for c in at.sidebar.caption]
                if c.startswith("read-only")]


def test_populated_store_reads_fine_read_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app_embedder: FakeEmbedder) -> None:
    uri = str(tmp_path / "store")
    store = MemoryStore.open(uri, embedder=app_embedder)
    store.add([Memory.new("refresh token race fixed with a mutex", "decision"),
               Memory.new("prefer uv over pip", "preference")])
    before = store.table_versions()
    at = _run(uri, monkeypatch)
    assert {m.label: m.value for m in at.metric}["Memories"] == "2"
    assert not _seed_buttons(at)
    assert "read-only: MEMLENS_READ_ONLY is set" in [c.value for c in at.sidebar.caption]
    at.switch_page("page_scripts/search.py").run()
    at.text_input(key="search_query").input("token race").run()
    assert not at.exception and not at.error
    assert store.table_versions() == before
