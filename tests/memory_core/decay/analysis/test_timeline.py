"""`memory_timeline`: the history in order and the decay curve replayed by hand."""

from __future__ import annotations

import math
from datetime import timedelta

import polars as pl
import pytest

from memory_core.curation import archive, edit, restore
from memory_core.decay import composite
from memory_core.decay.analysis import decay_frame, memory_timeline
from memory_core.model.errors import InvalidConfigError, MemoryNotFoundError
from memory_core.model.records import Edge
from memory_core.store import MemoryStore
from tests.memory_core.decay.analysis.conftest import NOW, aged, cite


def _at(curve: pl.DataFrame, when) -> dict:  # type: ignore[no-untyped-def]
    (row,) = curve.filter(pl.col("at") == when).to_dicts()
    return row


@pytest.fixture
def recalled(store: MemoryStore):  # type: ignore[no-untyped-def]
    """Created 100 days ago (S = 30), recalled 60 and 20 days ago, cited 3 days ago, linked
    to another memory 50 days ago."""
    memory = aged("the retry policy backs off", 100, stability=30.0)
    other = aged("an outage caused by retries", 100)
    store.add([memory, other])
    store.record_access([memory.id], at=NOW - timedelta(days=60), session_id="s1",
                        query="retry policy")
    store.record_access([memory.id], at=NOW - timedelta(days=20), session_id="s2")
    cite(store, memory, 3)
    store.edges.add([Edge.new(other.id, memory.id, "caused",
                              created_at=NOW - timedelta(days=50))])
    return memory, other


def test_events_oldest_first(store: MemoryStore, recalled) -> None:  # type: ignore[no-untyped-def]
    memory, other = recalled
    timeline = memory_timeline(store, memory.id, as_of=NOW)
    assert [(e.kind, e.at) for e in timeline.events] == [
        ("created", NOW - timedelta(days=100)), ("recall", NOW - timedelta(days=60)),
        ("edge", NOW - timedelta(days=50)), ("recall", NOW - timedelta(days=20)),
        ("cite", NOW - timedelta(days=3))]
    assert [e.resets for e in timeline.events] == [False, True, False, True, False]
    assert timeline.events[1].detail == "recalled: retry policy"
    assert timeline.events[1].data["session_id"] == "s1"
    assert timeline.events[2].detail == f"caused from {other.id}"
    assert not timeline.never_decays and timeline.as_of == NOW
    # a clock before the last recall sees only what happened by then
    earlier = memory_timeline(store, memory.id, as_of=NOW - timedelta(days=30))
    assert [e.kind for e in earlier.events] == ["created", "recall", "edge"]


def test_the_curve_resets_at_each_recall(store: MemoryStore, recalled) -> None:  # type: ignore[no-untyped-def]
    memory, _ = recalled
    curve = memory_timeline(store, memory.id, as_of=NOW, horizon_days=10).curve
    assert curve.columns[:4] == ["at", "day", "retrievability", "composite"]
    assert curve["at"].is_sorted() and curve["at"][0] == NOW - timedelta(days=100)
    assert curve["at"][-1] == NOW + timedelta(days=10)
    start = _at(curve, NOW - timedelta(days=100))
    assert (start["day"], start["composite"], start["access_count"]) == (0.0, 1.0, 0)
    # day 39: 39 days since creation, no recall yet
    row = _at(curve, NOW - timedelta(days=61))
    assert row["composite"] == pytest.approx((1 + 0.235 * 39 / 30) ** -0.5)
    # just before the first recall: 40 days of decay; at it: R = 1, one access
    before = _at(curve, NOW - timedelta(days=60) - timedelta(microseconds=1))
    assert before["retrievability"] == pytest.approx((1 + 0.235 * 40 / 30) ** -0.5)
    at = _at(curve, NOW - timedelta(days=60))
    assert (at["retrievability"], at["access_count"]) == (1.0, 1)
    assert at["composite"] == pytest.approx(1 + 0.1 * math.log(2))
    # today: 20 days since the second recall, two accesses, cited 3 days ago
    now = _at(curve, NOW)
    assert now["composite"] == pytest.approx(
        (1 + 0.235 * 20 / 30) ** -0.5 * (1 + 0.1 * math.log(3)) * 1.1)
    # it is the frame's composite at the same clock
    (frame_value,) = decay_frame(store, as_of=NOW).filter(
        pl.col("id") == memory.id)["composite"]
    assert now["composite"] == pytest.approx(frame_value, abs=1e-12)
    # five days on, the cite is 8 days old: no boost
    later = _at(curve, NOW + timedelta(days=5))
    assert later["citation"] == 1.0
    assert later["composite"] == pytest.approx(
        (1 + 0.235 * 25 / 30) ** -0.5 * (1 + 0.1 * math.log(3)))


def test_an_older_store_resets_at_last_accessed_at(store: MemoryStore) -> None:
    memory = aged("recalled before events were kept", 50, stability=30.0, access_count=3,
                  last_accessed_at=NOW - timedelta(days=10))
    store.add([memory])
    timeline = memory_timeline(store, memory.id, as_of=NOW, horizon_days=0)
    (reset,) = [e for e in timeline.events if e.resets]
    assert (reset.at, reset.data) == (NOW - timedelta(days=10), {"inferred": True})
    curve = timeline.curve
    assert _at(curve, NOW - timedelta(days=11))["access_count"] == 2
    stored = store.get(memory.id)
    assert _at(curve, NOW)["composite"] == pytest.approx(composite(stored, NOW).composite)


def test_edits_and_status_changes_from_the_audit(store: MemoryStore) -> None:
    memory = aged("a note to curate", 5)
    store.add([memory])
    archive(store, [memory.id], reason="stale")
    restore(store, [memory.id])
    edit(store, memory.id, tags=["kept"])
    timeline = memory_timeline(store, memory.id)  # the audit rows are written now
    kinds = [(e.kind, e.detail) for e in timeline.events]
    assert kinds[0][0] == "created"
    assert [k for k in kinds if k[0] in ("status", "edit")] == [
        ("status", "archived (stale)"), ("status", "restored"), ("edit", "edited")]


def test_constitutional_never_decays(store: MemoryStore) -> None:
    rule = aged("always cite sources", 400, "principle", importance="constitutional")
    store.add([rule])
    timeline = memory_timeline(store, rule.id, as_of=NOW, horizon_days=30)
    assert timeline.never_decays
    assert set(timeline.curve["composite"]) == {1.0}
    assert timeline.curve.height == 400 + 30 + 1


def test_unknown_ids_and_bad_horizons_are_refused(store: MemoryStore) -> None:
    with pytest.raises(MemoryNotFoundError, match="no memory with id 'nope'"):
        memory_timeline(store, "nope")
    store.add([memory := aged("x marks", 1)])
    with pytest.raises(InvalidConfigError, match="horizon_days"):
        memory_timeline(store, memory.id, horizon_days=-1)
