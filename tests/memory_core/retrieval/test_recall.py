"""recall(): the token budget, the scope AND-ed with Make_Skills' arguments, and the recall
events that let a recall be replayed (their metadata survives an export and an import)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.model.errors import InvalidConfigError, InvalidFilterError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.budget import count_tokens
from memory_core.retrieval.config import preset
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    store.add([
        Memory.new("token refresh runs in the gateway " + "padding words " * 20, "decision",
                   id="long", tags=("auth",), project="herd", agent="coder"),
        Memory.new("token refresh rotates keys hourly", "decision", id="short",
                   tags=("auth", "keys"), project="herd", agent="reviewer"),
        Memory.new("token refresh pattern: retry once", "pattern", id="pat",
                   tags=("keys",), project="web", agent="coder"),
    ])
    return store


def test_count_tokens_counts_wordpiece_tokens_of_the_shipped_tokenizer() -> None:
    assert count_tokens("") == 0
    assert count_tokens("token refresh") == 3  # token, ref, ##resh
    # 600 words: the embedder truncates at 256, a budget must not
    assert count_tokens("word " * 600) == 600


def test_max_tokens_drops_whole_items_lowest_ranked_first(filled: MemoryStore) -> None:
    full = recall(filled, "token refresh", limit=3, now=NOW)
    assert full.dropped_for_budget == 0 and full.tokens == count_tokens(full.text)
    budget = full.tokens - 1
    cut = recall(filled, "token refresh", limit=3, max_tokens=budget, now=NOW)
    assert cut.tokens <= budget
    assert [i["id"] for i in cut.items] == [i["id"] for i in full.items][:len(cut.items)]
    assert cut.dropped_for_budget == 3 - len(cut.items) >= 1
    nothing = recall(filled, "token refresh", limit=3, max_tokens=1, now=NOW)
    assert nothing.items == [] and nothing.text == "" and nothing.dropped_for_budget == 3


def test_max_tokens_must_be_positive(filled: MemoryStore) -> None:
    with pytest.raises(InvalidConfigError, match="max_tokens"):
        recall(filled, "token", max_tokens=0)


def test_scope_is_anded_with_record_type_and_project_tag(filled: MemoryStore) -> None:
    ids = {i["id"] for i in recall(filled, "token refresh", limit=5, record_type="decision",
                                   scope=Filter(agent="reviewer"), now=NOW).items}
    assert ids == {"short"}
    tagged = recall(filled, "token refresh", limit=5, project_tag="keys",
                    scope=Filter(tags=["auth"]), now=NOW)
    assert {i["id"] for i in tagged.items} == {"short"}  # tagged keys AND auth
    assert recall(filled, "token refresh", record_type="pattern",
                  scope=Filter(memory_type="decision"), now=NOW).items == []
    with pytest.raises(InvalidFilterError, match="tenant"):
        recall(filled, "token", scope=Filter(tenant="other"))


def test_each_memory_sent_writes_a_recall_event_with_what_replay_needs(
        filled: MemoryStore) -> None:
    cfg = preset("full")
    result = recall(filled, "token refresh", limit=2, session_id="s1", tier="compact",
                    scope=Filter(project="herd"), max_tokens=500, actor="claude", now=NOW,
                    config=cfg)
    events = sorted(filled.events.query(kinds=("recall",)), key=lambda e: e.metadata["rank"])
    assert [e.memory_id for e in events] == [i["id"] for i in result.items]
    assert {e.actor for e in events} == {"claude"}
    assert {e.session_id for e in events} == {"s1"}
    meta = events[0].metadata
    assert meta["recall_id"] == result.recall_id and meta["rank"] == 1
    assert meta["tier"] == "compact" and meta["limit"] == 2 and meta["max_tokens"] == 500
    assert meta["tokens"] == result.tokens == count_tokens(result.text)
    assert meta["filter"] == {"project": "herd"} and meta["dropped_for_budget"] == 0
    assert meta["config"]["name"] == "full" and meta["config"]["use_decay"] is True
    assert isinstance(meta["score"], float) and 0 < meta["decay"] <= 1.5
    assert Filter.from_dict(meta["filter"]) == Filter(project="herd")
    assert json.loads(json.dumps(meta)) == meta
    plain = recall(filled, "token refresh", limit=1, now=NOW)
    later = [e for e in filled.events.query(kinds=("recall",))
             if e.metadata["recall_id"] == plain.recall_id]
    assert [e.actor for e in later] == [filled.actor]
    assert plain.recall_id != result.recall_id


def test_recall_event_metadata_survives_export_and_import(filled: MemoryStore,
                                                          tmp_path: Path) -> None:
    recall(filled, "token refresh", limit=2, scope=Filter(tags=["auth"]), max_tokens=400,
           actor="claude", now=NOW)
    export_store(filled, tmp_path / "out.ndjson")
    target = MemoryStore.open(str(tmp_path / "copy"), embedder=FakeEmbedder())
    import_file(target, tmp_path / "out.ndjson")
    assert sorted(((e.id, e.actor, dict(e.metadata)) for e in target.events.query()), key=str) == \
        sorted(((e.id, e.actor, dict(e.metadata)) for e in filled.events.query()), key=str)


def test_cli_recall_max_tokens(filled: MemoryStore, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    code, out, err = run_cli(["recall", "token refresh", "--store", filled.uri, "--limit", "3",
                              "--max-tokens", "25", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["tokens"] <= 25 and data["dropped_for_budget"] == 3 - len(data["items"]) >= 1
    assert data["recall_id"]
