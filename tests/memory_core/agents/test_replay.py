"""Recall replay against a hand-built history: archive, supersede, add, purge and a ranking
config change, each difference explained with its batch and actor."""

from __future__ import annotations

import pytest

from memory_core.agents.recalls import find_recall
from memory_core.agents.replay import replay
from memory_core.curation.actions import archive, delete, supersede
from memory_core.model.errors import RecallNotFoundError
from memory_core.model.records import Memory
from memory_core.retrieval.config import RankingConfig, preset
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore

QUERY = "cache invalidation redis"
#: vector ranking with decay: a recall's own access bumps its memories' usage alike, so
#: their order holds and replay right after the recall finds nothing changed
VECTOR = RankingConfig(use_bm25=False, context_window=0, use_decay=True)


@pytest.fixture
def history(store: MemoryStore) -> tuple[MemoryStore, str]:
    store.add([Memory.new(f"cache invalidation redis note {w}", "decision", id=f"m{i}",
                          tags=("cache",))
               for i, w in enumerate(["alpha", "beta", "gamma", "delta", "epsilon"])])
    result = recall(store, QUERY, limit=3, actor="claude", session_id="s1", config=VECTOR)
    return store, result.recall_id


def _by_id(rep):  # noqa: ANN001, ANN202
    return {d.memory_id: d for d in rep.differences}


def test_replay_without_changes_is_the_same(history: tuple[MemoryStore, str]) -> None:
    store, rid = history
    rep = replay(store, rid)
    assert rep.same and rep.differences == ()
    assert rep.recall.actor == "claude" and rep.recall.query == QUERY
    assert len(rep.then_ids) == 3


def test_replay_explains_an_archive_with_its_batch_and_actor(
        history: tuple[MemoryStore, str]) -> None:
    store, rid = history
    gone = replay(store, rid).then_ids[0]
    report = archive(store, [gone], reason="stale")
    rep = replay(store, rid)
    diff = _by_id(rep)[gone]
    assert diff.change == "archived" and diff.rank_then == 1 and diff.rank_now is None
    assert diff.batch_id == report.batch_id and diff.actor == store.actor
    assert f"archived since by {store.actor} in batch {report.batch_id}" in diff.explanation
    assert "(stale)" in diff.explanation
    # the memory ranked 4th then moves into the answer, and says why
    newcomer = [d for d in rep.differences if d.rank_then is None]
    assert len(newcomer) == 1 and f"moved up: {gone}" in newcomer[0].explanation
    assert store.events.query(kinds=("recall",), limit=None).__len__() == 3  # replay wrote nothing


def test_replay_explains_supersede_add_and_purge(history: tuple[MemoryStore, str]) -> None:
    store, rid = history
    first, second, third = replay(store, rid).then_ids
    sup = supersede(store, first, content="cache invalidation redis note alpha, now with TTLs")
    store.add([Memory.new("cache invalidation redis redis redis", "decision", id="fresh")])
    purge = delete(store, [third], purge=True, reason="secret")
    rep = replay(store, rid)
    diffs = _by_id(rep)
    assert diffs[first].change == "superseded" and diffs[first].batch_id == sup.batch_id
    assert "replaced by" in diffs[first].explanation
    assert diffs[third].change == "purged" and diffs[third].batch_id == purge.batch_id
    assert diffs[third].rank_then == 3  # the purge deleted its event: the audit row kept it
    assert third in rep.then_ids
    if "fresh" in rep.now_ids:
        assert diffs["fresh"].change == "added"
        assert "added since the recall" in diffs["fresh"].explanation
    added = [d for d in rep.differences if d.change == "added"]
    assert added, rep.differences  # the successor or the new memory
    assert all(d.explanation for d in rep.differences)


def test_replay_explains_a_ranking_config_change(history: tuple[MemoryStore, str]) -> None:
    store, rid = history
    other = preset("bm25").with_changes(use_decay=False)
    rep = replay(store, rid, config=other)
    knobs = {k for k, _, _ in rep.config_changes}
    assert {"use_vector", "use_bm25", "use_decay"} <= knobs
    assert rep.differences  # BM25 alone orders these ties by id, the vectors did not
    for d in rep.differences:
        assert d.change == "config" and "the ranking config changed" in d.explanation


def test_replay_of_an_unknown_recall_says_so(store: MemoryStore) -> None:
    with pytest.raises(RecallNotFoundError, match="memlens agents"):
        replay(store, "nope")


def test_past_recall_reads_its_events(history: tuple[MemoryStore, str]) -> None:
    store, rid = history
    past = find_recall(store, rid)
    assert past.session_id == "s1" and past.tier == "standard" and past.limit == 3
    assert past.config["name"] == "custom" and past.filter == {}


def test_replay_shows_the_usage_factor_a_recall_added(store: MemoryStore) -> None:
    store.add([Memory.new(f"cache invalidation redis note {w}", "decision", id=f"m{i}")
               for i, w in enumerate(["alpha", "beta", "gamma", "delta"])])
    sent = recall(store, QUERY, limit=2, config=preset("full"))
    after = store.get_many([i["id"] for i in sent.items])
    assert {m.access_count for m in after.values()} == {1}
    rep = replay(store, sent.recall_id)
    moved = [d for d in rep.differences if d.rank_then is not None and d.decay_now]
    for d in moved:  # usage 1 + 0.1 ln 2 raised the prior: decay explains the move
        assert d.decay_now > d.decay_then
        assert f"x{d.decay_then:.3f} then, x{d.decay_now:.3f} now" in d.explanation
