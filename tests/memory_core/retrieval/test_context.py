"""Session context on a hand-built session: neighbours lift each other's scores (or share a
BM25 window), only within the window, the session, the memory type and a dialogue, and search
explains it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.config import RankingConfig, preset
from memory_core.retrieval.context import _Session, lift
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore

T0 = datetime(2026, 9, 1, 10, tzinfo=UTC)


def _session(*docs: str) -> _Session:
    key = ("s1", "event")
    return _Session({d: (key, i) for i, d in enumerate(docs)}, {key: list(docs)})


def test_lift_adds_a_share_of_the_best_neighbour_within_the_window() -> None:
    s = _session("t1", "t2", "t3", "t4", "t5")
    lifted, lifts = lift({"t1": 4.0, "t3": 1.0}, s, window=2, weight=0.5)
    # t1 sees t2, t3 (best 1.0); t3 sees t1, t2, t4, t5 (best 4.0); t2 sees t1, t3, t4
    assert lifted == {"t1": 4.0 + 0.5, "t3": 1.0 + 2.0, "t2": 0.0 + 2.0, "t4": 0.0 + 0.5,
                      "t5": 0.0 + 0.5}
    assert lifts["t2"].neighbour == "t1" and lifts["t2"].own == 0.0
    assert "t5" in lifted and lifts["t5"].neighbour == "t3"  # t1 is 4 away from t5
    assert lift({"t1": 4.0}, s, window=0, weight=0.5)[0] == {"t1": 4.0}


def _turns(store: MemoryStore) -> list[str]:
    texts = ["Melanie: what did you do last weekend?",
             "Caroline: I went to the LGBTQ support group on Saturday.",
             "Melanie: how was it?",
             "Caroline: it was powerful, everyone shared their stories."]
    memories = [Memory.new(t, "event", session_id="conv-1", project="p",
                           created_at=T0 + timedelta(seconds=i)) for i, t in enumerate(texts)]
    # right after the first turn in time, but an observation, not a turn of the dialogue
    other = Memory.new("an observation about the group meeting", "observation",
                       session_id="conv-1", project="p", created_at=T0 + timedelta(seconds=0.5))
    store.add([*memories, other])
    return [m.id for m in memories] + [other.id]


def test_a_reply_is_found_through_the_question_next_to_it(store: MemoryStore) -> None:
    ids = _turns(store)
    query = "weekend plans"
    plain = search(store, query, config=preset("bm25"), limit=10)
    assert [h.memory.id for h in plain] == [ids[0]]  # the only turn with a query word
    cfg = RankingConfig(use_vector=False, context_window=1, context_weight=0.5,
                        bm25_context="lift")
    found = search(store, query, config=cfg, limit=10)
    by_id = {h.memory.id: h for h in found}
    assert [h.memory.id for h in found] == [ids[0], ids[1]]  # the reply, lifted
    evidence = by_id[ids[1]].engines["bm25"]
    assert evidence.context_from == ids[0]
    assert evidence.context == pytest.approx(0.5 * plain[0].engines["bm25"].score)
    assert evidence.score == pytest.approx(evidence.context)  # its own BM25 score is 0
    assert by_id[ids[1]].explain()["engines"]["bm25"]["context_from"] == ids[0]
    # turn 3 is two away (window 1); the observation is of another type: neither lifted
    assert ids[2] not in by_id and ids[4] not in by_id


def test_a_reply_is_found_through_the_question_in_its_bm25_window(store: MemoryStore) -> None:
    ids = _turns(store)
    cfg = RankingConfig(use_vector=False, context_window=1, context_weight=0.5)
    assert cfg.bm25_context == "window"
    found = search(store, "weekend plans", config=cfg, limit=10)
    by_id = {h.memory.id: h for h in found}
    # the question and its reply share the question's words; turn 3 is two away and the
    # observation is of another type
    assert [h.memory.id for h in found] == [ids[0], ids[1]]
    reply = by_id[ids[1]].engines["bm25"]
    assert reply.context_from == ids[0]
    assert reply.context == pytest.approx(reply.score) and reply.score > 0  # none of its own
    question = by_id[ids[0]].engines["bm25"]
    assert question.context_from is None  # its own words, nothing from the reply
    assert by_id[ids[1]].explain()["engines"]["bm25"]["context_from"] == ids[0]


def test_words_spread_over_a_window_add_up(store: MemoryStore) -> None:
    """A turn whose window holds every query word (one per turn) outranks a turn that holds
    two of them alone; under the lift it would not."""
    turns = [Memory.new(text, "event", session_id="conv-5", agent=agent,
                        created_at=T0 + timedelta(seconds=i))
             for i, (agent, text) in enumerate([
                 ("Caroline", "Caroline: the support group was great"),
                 ("Melanie", "Melanie: when did you go?"),
                 ("Caroline", "Caroline: on saturday, with Jo")])]
    alone = Memory.new("Caroline: our support group keeps growing, it is a big support "
                       "group now", "event", session_id="conv-6", agent="Caroline",
                       created_at=T0 + timedelta(days=3))
    store.add([*turns, alone])
    query = "support group saturday"
    window = search(store, query, config=RankingConfig(use_vector=False, context_window=1),
                    limit=10)
    ranked = [h.memory.id for h in window]
    assert ranked.index(turns[1].id) < ranked.index(alone.id)
    lifted = search(store, query, config=RankingConfig(
        use_vector=False, context_window=1, bm25_context="lift"), limit=10)
    ranked = [h.memory.id for h in lifted]
    assert ranked.index(alone.id) < ranked.index(turns[1].id)


@pytest.mark.parametrize("agents, lifted", [(("Melanie", "Caroline"), True),
                                            (("planner", "planner"), False)])
def test_only_a_dialogue_lends_context(store: MemoryStore, agents: tuple[str, str],
                                       lifted: bool) -> None:
    """Two agents taking turns are a dialogue and the reply is found through the question;
    one agent's run of records is not, and its neighbours lend nothing."""
    question = Memory.new("any weekend plans?", "event", session_id="conv-7",
                          agent=agents[0], created_at=T0)
    reply = Memory.new("a hike with friends.", "event", session_id="conv-7", agent=agents[1],
                       created_at=T0 + timedelta(seconds=1))
    store.add([question, reply])
    for mode in ("window", "lift"):
        cfg = RankingConfig(use_vector=False, context_window=1, bm25_context=mode)
        found = [h.memory.id for h in search(store, "weekend plans", config=cfg, limit=10)]
        assert found == ([question.id, reply.id] if lifted else [question.id]), mode


def test_memories_without_a_session_rank_as_before(store: MemoryStore) -> None:
    store.add([Memory.new(f"cache note {i}", "fact") for i in range(3)])
    with_ctx = search(store, "cache note", config=preset("hybrid"), limit=5)
    without = search(store, "cache note", config=preset("hybrid").with_changes(
        context_window=0), limit=5)
    assert [h.memory.id for h in with_ctx] == [h.memory.id for h in without]
    assert [h.score for h in with_ctx] == pytest.approx([h.score for h in without])


def test_neighbours_further_apart_than_the_context_span_do_not_count(
        store: MemoryStore) -> None:
    first = Memory.new("Melanie: any weekend plans?", "event", session_id="conv-2",
                       created_at=T0)
    soon = Memory.new("Caroline: a hike with friends.", "event", session_id="conv-2",
                      created_at=T0 + timedelta(minutes=10))
    later = Memory.new("Caroline: a picnic by the lake.", "event", session_id="conv-2",
                       created_at=T0 + timedelta(hours=3))  # beyond CONTEXT_SPAN (1 h)
    store.add([first, soon, later])
    cfg = RankingConfig(use_vector=False, context_window=2, context_weight=0.5)
    found = [h.memory.id for h in search(store, "weekend plans", config=cfg, limit=10)]
    assert found == [first.id, soon.id]


@pytest.mark.parametrize("hidden_by", ["status", "filter"])
def test_a_memory_the_filter_hides_is_no_neighbour(store: MemoryStore, hidden_by: str) -> None:
    """Neighbours are counted among the memories the search may show: an archived turn (the
    statuses, decided from the session order alone) or one outside the filter's project
    (read under the filter) is skipped, and the turn after it is the neighbour."""
    question = Memory.new("Melanie: any weekend plans?", "event", session_id="conv-3",
                          project="p", created_at=T0)
    hidden = Memory.new("Caroline: hmm.", "event", session_id="conv-3", project="p",
                        created_at=T0 + timedelta(seconds=1))
    reply = Memory.new("Caroline: a hike with friends.", "event", session_id="conv-3",
                       project="p", created_at=T0 + timedelta(seconds=2))
    store.add([question, hidden, reply])
    if hidden_by == "status":
        store.upsert([replace(hidden, status="archived")])
        flt = Filter()
    else:
        store.upsert([replace(hidden, project="q")])
        flt = Filter(project="p")
    cfg = RankingConfig(use_vector=False, context_window=1, context_weight=0.5)
    found = search(store, "weekend plans", flt, config=cfg, limit=10)
    assert [h.memory.id for h in found] == [question.id, reply.id]
    assert found[1].engines["bm25"].context_from == question.id


def test_pool_rows_a_write_moved_are_read_again_by_id(store: MemoryStore) -> None:
    """The engines' row ids name rows of the version they ran at: when a write moves a row
    before session context reads it, its text and vector come from its id, not dropped."""
    from memory_core.retrieval.context import _read_pool

    memory = Memory.new("the answer is in redis", "event", session_id="s1", created_at=T0)
    store.add([memory])
    stale = store.rows.locate([memory.id], store.predicate())[memory.id]
    edited = replace(memory, content="the answer is in postgres")
    store.upsert([edited])  # rewrites the row: `stale` names nothing now
    assert store.rows.take([stale], ["id"]).num_rows == 0
    query_vector = store.embedder.embed_one("postgres")
    read = _read_pool(store, {memory.id: stale}, [memory.id], [memory.id], query_vector, [])
    assert read.texts == {memory.id: edited.content}
    assert set(read.cosines) == {memory.id}
