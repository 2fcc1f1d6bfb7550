"""`memlens agents` and `memlens replay`: the activity table, memory use, and a replay after
an archive, in text and JSON."""

from __future__ import annotations

import json

import pytest

from memory_core.curation.actions import archive
from memory_core.model.records import Memory
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli


@pytest.fixture
def recalled(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> tuple[MemoryStore, str]:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store.add([Memory.new(f"queue retry policy {w}", "decision", id=f"q{i}")
               for i, w in enumerate(["backoff", "jitter", "limit"])])
    result = recall(store, "queue retry", limit=2, actor="claude", session_id="s9",
                    config=RankingConfig(use_bm25=False, context_window=0))
    return store, result.recall_id


def test_agents_lists_sessions_and_recalls(recalled: tuple[MemoryStore, str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store, rid = recalled
    code, out, err = run_cli(["agents", "--store", store.uri], capsys)
    assert code == 0, err
    assert "claude" in out and "s9" in out
    code, out, _ = run_cli(["agents", "--store", store.uri, "--recalls"], capsys)
    assert rid in out and "queue retry" in out
    code, out, _ = run_cli(["agents", "--store", store.uri, "--json", "--agent", "claude"],
                           capsys)
    data = json.loads(out)
    assert data["sessions"][0]["recalls"] == 1 and data["sessions"][0]["memories_sent"] == 2
    code, out, _ = run_cli(["agents", "--store", store.uri, "--use", "--json"], capsys)
    use = json.loads(out)
    assert len(use["recalled_most"]) == len(use["recalled_never_cited"]) == 2


def test_replay_explains_an_archive(recalled: tuple[MemoryStore, str],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    store, rid = recalled
    code, out, _ = run_cli(["replay", rid, "--store", store.uri], capsys)
    assert code == 0 and "the same memories, in the same order" in out
    first = json.loads(run_cli(["replay", rid, "--store", store.uri, "--json"], capsys)[1])
    gone = first["then"][0]
    report = archive(store, [gone], reason="obsolete")
    code, out, _ = run_cli(["replay", rid, "--store", store.uri], capsys)
    assert f"{gone} #1 -> #- archived: archived since by {store.actor} in batch " \
           f"{report.batch_id}" in out
    data = json.loads(run_cli(["replay", rid, "--store", store.uri, "--json"], capsys)[1])
    assert gone not in data["now"] and not data["same"]
    assert {d["change"] for d in data["differences"]} >= {"archived"}


def test_replay_of_an_unknown_id_is_one_line(recalled: tuple[MemoryStore, str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = recalled
    code, out, err = run_cli(["replay", "no-such", "--store", store.uri], capsys)
    assert code == 1 and err.count("\n") == 1
    assert "no recall with id 'no-such'" in err and "memlens agents --recalls" in err
