"""The session order: which memories sit around a candidate in its session, kept per table
version, never mixing up rows that moved."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from memory_core.model.records import Memory
from memory_core.store import MemoryStore

T0 = datetime(2026, 9, 1, 10, tzinfo=UTC)
HOUR = timedelta(hours=1)


def _turn(text: str, minutes: float, session: str = "conv-1", kind: str = "event",
          **fields: object) -> Memory:
    return Memory.new(text, kind, session_id=session, created_at=T0 + timedelta(
        minutes=minutes), **fields)


def _rows(store: MemoryStore, *memories: Memory) -> dict[int, str]:
    located = store.rows.locate([m.id for m in memories], store.predicate())
    return {located[m.id]: m.id for m in memories}


def test_around_a_memory_are_its_session_and_type_within_the_span(store: MemoryStore) -> None:
    seed = _turn("the seed turn", 0)
    near = [_turn("a turn before", -30), _turn("a turn after", 45)]
    far = _turn("a turn three hours later", 180)
    other_kind = _turn("an observation at the same minute", 1, kind="observation")
    other_session = _turn("a turn of another session", 2, session="conv-2")
    no_session = Memory.new("no session at all", "event", created_at=T0)
    store.add([seed, *near, far, other_kind, other_session, no_session])
    around = store.queries.session_order().around(_rows(store, seed), HOUR)
    assert sorted(m.id for m in around.rows.values()) == sorted(
        m.id for m in [seed, *near])
    (span,) = around.ranges
    assert (span.session_id, span.memory_type) == ("conv-1", "event")
    assert (span.start, span.end) == (T0 - HOUR, T0 + HOUR)
    # ordered by time within the range
    times = [m.created for m in sorted(around.rows.values(), key=lambda m: m.created)]
    assert times == sorted(times)


def test_overlapping_spans_merge_and_statuses_are_kept_to(store: MemoryStore) -> None:
    a, b = _turn("first seed", 0), _turn("second seed", 30)
    archived = _turn("an archived turn between them", 15)
    store.add([a, b, archived])
    store.upsert([replace(archived, status="archived")])
    around = store.queries.session_order().around(_rows(store, a, b), HOUR)
    assert len(around.ranges) == 1  # -60..60 and -30..90 minutes are one range
    assert {m.id for m in around.rows.values()} == {a.id, b.id, archived.id}
    active = store.queries.session_order().around(_rows(store, a, b), HOUR, statuses=["active"])
    assert {m.id for m in active.rows.values()} == {a.id, b.id}


def test_a_write_is_seen_by_the_next_question(store: MemoryStore) -> None:
    seed = _turn("the seed turn", 0)
    store.add([seed])
    order = store.queries.session_order()
    assert len(order.around(_rows(store, seed), HOUR).rows) == 1
    reply = _turn("the reply, written later", 2)
    store.add([reply])
    assert {m.id for m in order.around(_rows(store, seed), HOUR).rows.values()} == {
        seed.id, reply.id}


def test_a_seed_whose_row_moved_has_no_range(store: MemoryStore) -> None:
    seed, other = _turn("the seed turn", 0), _turn("another turn", 1)
    store.add([seed, other])
    rows = _rows(store, seed, other)
    # a row id that now holds another memory than the one asked for is not used
    mixed = {row: (other.id if memory_id == seed.id else seed.id)
             for row, memory_id in rows.items()}
    assert store.queries.session_order().around(mixed, HOUR).rows == {}


def test_each_member_says_which_agent_wrote_it(store: MemoryStore) -> None:
    """Session context tells a dialogue from one agent's records by these codes: equal for
    one agent, different for another, -1 for none."""
    turns = [_turn("a question", 0, agent="Melanie"), _turn("an answer", 1, agent="Caroline"),
             _turn("another question", 2, agent="Melanie"), _turn("unsigned", 3)]
    store.add(turns)
    rows = store.queries.session_order().around(_rows(store, turns[0]), HOUR).rows
    agent = {m.id: m.agent for m in rows.values()}
    assert agent[turns[0].id] == agent[turns[2].id] != agent[turns[1].id]
    assert min(agent[turns[0].id], agent[turns[1].id]) >= 0
    assert agent[turns[3].id] == -1
