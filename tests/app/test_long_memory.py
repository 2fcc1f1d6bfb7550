"""A memory far longer than a card: the Search page's standard tier and the Details view show
its first `SHOWN_CHARS` characters and a "Show all" toggle, not the whole of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core import SHOWN_CHARS
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

APP = str(Path(__file__).resolve().parents[2] / "memlens_app" / "main.py")
LONG = " ".join(["caching"] * 25_000)  # 199,999 characters


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    store.add([Memory.new(LONG, "observation", id="long"),
               Memory.new("caching decision, short", "decision", id="short")])
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def test_the_card_and_the_details_cut_a_long_memory_until_show_all(store: MemoryStore
                                                                    ) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("page_scripts/search.py").run()
    at.text_input(key="search_query").set_value("caching").run()
    assert max(len(t) for t in _texts(at)) == SHOWN_CHARS
    assert "caching decision, short" in _texts(at)  # a short one whole, with no toggle
    assert [t.key for t in at.toggle if t.key.startswith("all_")] == ["all_long"]
    assert at.toggle(key="all_long").label == f"Show all {len(LONG):,} characters"
    at.toggle(key="all_long").set_value(True).run()
    assert LONG in _texts(at)
    at.toggle(key="all_long").set_value(False).run()
    at.button(key="detail_long").click().run()
    assert LONG not in _texts(at)
    at.toggle(key="detail_all_long").set_value(True).run()
    assert _texts(at).count(LONG) == 1  # in the Details; the card stays cut
