"""AppTest of the Agents page on a real LanceDB store: recall events by two agents reach the
activity plot and tables and the memory-use lists; a recall replayed after an archive says
which memory left, by whom and in which batch; hostile agent names and content stay text;
the Curate and Graph handovers."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.curation.actions import archive
from memory_core.curation.cite import cite
from memory_core.model.records import Memory
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from tests.app.inert import check_page, plain
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "memlens_app" / "main.py")
PAGE = "page_scripts/agents.py"
HOSTILE_AGENT = "<img src=x onerror=alert(1)> [x](http://evil.example)"
VECTOR = RankingConfig(use_bm25=False, context_window=0)


@pytest.fixture
def store(tmp_path: Path, app_embedder: FakeEmbedder,
          monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    store = MemoryStore.open(str(tmp_path / "store"), embedder=app_embedder)
    store.add([Memory.new(f"release checklist item {w}", "decision", id=f"r{i}")
               for i, w in enumerate(["tag", "notes", "sign", "publish"])])
    sent = recall(store, "release checklist", limit=2, actor="claude", session_id="s1",
                  config=VECTOR)
    cite(store, [sent.items[0]["id"]], actor="claude", session_id="s1")
    recall(store, "release notes :red[x]", limit=1, actor=HOSTILE_AGENT, session_id="s2",
           config=VECTOR)
    monkeypatch.setenv("MEMLENS_STORE", store.uri)
    return store


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    return "\n".join(plain(e.value) for e in [*at.markdown, *at.caption, *at.info,
                                              *at.success, *at.error])


def test_activity_shows_each_agent_and_session(store: MemoryStore) -> None:
    at = _open()
    # claude, the hostile name, and the store's actor, who added the memories
    assert "3 agents, 2 recalls" in _text(at)
    [rows] = [d.value for d in at.dataframe if "memories_sent" in d.value.columns]
    claude = rows[rows["actor"] == "claude"]
    assert list(claude["recalls"]) == [1] and list(claude["cites"]) == [1]
    assert list(claude["memories_sent"]) == [2]
    assert at.get("plotly_chart")
    check_page(at)  # the hostile agent name is text everywhere


def test_memory_use_lists_the_recalled_memories(store: MemoryStore) -> None:
    at = _open()
    most, uncited = [d.value for d in at.dataframe
                            if list(d.value.columns) == ["memory_id", "recalls", "cites",
                                                         "content"]]
    sent = {e.memory_id for e in store.events.query(kinds=("recall",))}
    cited = {e.memory_id for e in store.events.query(kinds=("cite",))}
    assert set(most["memory_id"]) == sent and len(cited) == 1
    assert set(uncited["memory_id"]) == sent - cited
    assert "None." in _text(at)  # not recalled in 30 days: every memory is younger


def test_replay_after_an_archive_explains_it(store: MemoryStore) -> None:
    claude = [e for e in store.events.query(kinds=("recall",)) if e.actor == "claude"]
    first = min(claude, key=lambda e: e.metadata["rank"]).memory_id
    report = archive(store, [first], reason="superseded by the new checklist")
    at = _open()
    picker = at.selectbox(key="agents_recall")
    choice = next(o for o in picker.options if "claude" in o)
    picker.select_index(picker.options.index(choice)).run()
    text = _text(at)
    assert f"archived since by {store.actor} in batch {report.batch_id}" in text.replace(
        "\\", "")
    assert not at.exception
    check_page(at)


def test_replay_links_to_curate(store: MemoryStore) -> None:
    at = _open()
    picker = at.selectbox(key="agents_recall")
    picker.select_index(next(i for i, o in enumerate(picker.options) if "claude" in o)).run()
    memory = at.selectbox(key="agents_replay_memory").value
    at.button(key="agents_replay_curate").click().run()
    assert not at.exception
    assert at.text_area(key="curate_id_text").value.split() == [memory]
