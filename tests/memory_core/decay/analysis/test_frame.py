"""`decay_frame`: every factor of every memory agrees with `decay.composite`; the threshold
day worked out by hand, citation expiry included."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import polars as pl
import pytest

from memory_core.decay import DecayParams, composite
from memory_core.decay.analysis import FRAME_COLUMNS, decay_frame
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.model.records import Event
from memory_core.store import MemoryStore
from tests.memory_core.decay.analysis.conftest import NOW, aged, cite

K1 = 1.1 / 0.5  # a cited normal memory, never recalled, at threshold 0.5


def _row(frame: pl.DataFrame, memory_id: str) -> dict:
    (row,) = frame.filter(pl.col("id") == memory_id).to_dicts()
    return row


def _varied(store: MemoryStore) -> dict[str, float | None]:
    """Memories of every kind the frame must get right; returns id -> cite age (days)."""
    rng = random.Random(7)
    types = ["fact", "thread", "principle", "pattern", "event", "made_up_type"]
    tiers = ["constitutional", "critical", "important", "normal", "temporary", "deprecated"]
    memories, cites = [], {}
    for i in range(60):
        accessed = rng.random() < 0.6
        memory = aged(f"memory number {i}", rng.uniform(0, 400), rng.choice(types),
                      importance=rng.choice(tiers), stability=rng.choice([None, 3.7, 45.0]),
                      access_count=rng.randint(1, 200) if accessed else 0)
        if accessed:
            memory = memory.with_changes(last_accessed_at=NOW - timedelta(
                days=rng.uniform(-2, 30)))  # some after the clock: t is 0
        if i % 5 == 0:
            memory = memory.with_changes(stability=None)  # older stores: the default
        memories.append(memory)
        cites[memory.id] = rng.choice([None, 1.5, 6.99, 7.01, 30.0, -1.0])
    store.add(memories)
    store.events.record([Event.new("cite", m.id, at=NOW - timedelta(days=cites[m.id]))
                         for m in memories if cites[m.id] is not None])
    return cites


@pytest.mark.parametrize("params", [
    DecayParams(),
    DecayParams(fsrs_factor=0.5, stability_scale=0.3, usage_cap=1.2, citation_boost=1.3,
                citation_days=3.0, tier_anchor={"critical": 2.0, "normal": 0.9}),
])
def test_every_factor_agrees_with_composite(store: MemoryStore, params: DecayParams) -> None:
    cites = _varied(store)
    frame = decay_frame(store, as_of=NOW, params=params)
    assert frame.columns[:len(FRAME_COLUMNS)] == list(FRAME_COLUMNS)
    assert frame.height == 60 and frame["id"].to_list() == sorted(frame["id"])
    for memory in store.list():
        age = cites[memory.id]
        # a cite after the clock is not the latest cite "at or before" it
        cited_at = None if age is None or age < 0 else NOW - timedelta(days=age)
        expected = composite(memory, NOW, params=params, cited_at=cited_at)
        row = _row(frame, memory.id)
        assert row["cited_at"] == cited_at
        for name in ("retrievability", "usage", "anchor", "citation", "composite"):
            assert row[name] == pytest.approx(getattr(expected, name), abs=1e-9), name
        assert row["never_decays"] == (memory.importance == "constitutional")


def test_a_missing_stability_uses_the_default_times_the_scale(store: MemoryStore) -> None:
    memory = aged("old thread", 10, "thread", importance="important").with_changes(
        stability=None)
    store.add([memory])
    row = _row(decay_frame(store, as_of=NOW, params=DecayParams(stability_scale=3.0)),
               memory.id)
    assert row["stability"] == 21.0 * 2.0 * 3.0  # thread 21 d x important 2 x scale 3
    assert row["retrievability"] == pytest.approx((1 + 0.235 * 10 / 126) ** -0.5)


def test_threshold_day_of_an_uncited_memory(store: MemoryStore) -> None:
    memory = aged("decays from creation", 40, stability=10.0)
    recalled = aged("recalled three times", 100, stability=30.0, access_count=3,
                    importance="important", last_accessed_at=NOW - timedelta(days=5))
    store.add([memory, recalled])
    frame = decay_frame(store, as_of=NOW)
    row = _row(frame, memory.id)
    assert row["days_since"] == 40.0
    assert row["days_to_threshold"] == pytest.approx(10 / 0.235 * ((1 / 0.5) ** 2 - 1) - 40)
    assert row["falls_below_on"] == NOW + timedelta(days=row["days_to_threshold"])
    k = (1 + 0.1 * math.log(4)) * 1.15
    assert _row(frame, recalled.id)["days_to_threshold"] == pytest.approx(
        30 / 0.235 * ((k / 0.5) ** 2 - 1) - 5)


def test_threshold_day_with_a_citation_that_expires(store: MemoryStore) -> None:
    """Cited a day ago: the boost lasts 6 more days (e = 6)."""
    early = aged("crosses while cited", 487, stability=30.0)
    late = aged("crosses long after the boost", 300, stability=30.0)
    expiry = aged("the expiry drops it below", 420, stability=30.0)
    store.add([early, late, expiry])
    for memory in (early, late, expiry):
        cite(store, memory, 1.0)
    frame = decay_frame(store, as_of=NOW)
    assert {r["citation"] for r in frame.to_dicts()} == {1.1}
    # with the boost: 30 / 0.235 * (2.2 ** 2 - 1) - 487 = 3.2 days < 6
    assert _row(frame, early.id)["days_to_threshold"] == pytest.approx(
        30 / 0.235 * (K1 ** 2 - 1) - 487)
    # with it: 490.2 - 300 = 190.2 > 6, so without it: 30 / 0.235 * (2 ** 2 - 1) - 300
    assert _row(frame, late.id)["days_to_threshold"] == pytest.approx(
        30 / 0.235 * ((1 / 0.5) ** 2 - 1) - 300)
    # with it 70.2 > 6; without it 382.98 - 420 < 0: it drops at the expiry, 7 - 1 days
    row = _row(frame, expiry.id)
    assert row["composite"] == pytest.approx(1.1 * (1 + 0.235 * 420 / 30) ** -0.5)
    assert row["composite"] > 0.5
    assert row["days_to_threshold"] == pytest.approx(7 - 1)


def test_zero_when_below_inf_when_never(store: MemoryStore) -> None:
    below = aged("long forgotten", 2000, stability=10.0)
    rule = aged("a constitutional rule", 2000, "principle", importance="constitutional")
    store.add([below, rule])
    frame = decay_frame(store, as_of=NOW, threshold=0.5)
    assert _row(frame, below.id)["days_to_threshold"] == 0.0
    assert _row(frame, below.id)["falls_below_on"] == NOW
    row = _row(frame, rule.id)
    assert (row["composite"], row["days_to_threshold"], row["falls_below_on"]) == (
        1.0, math.inf, None)


def test_a_slow_curve_past_year_9999_has_no_date(store: MemoryStore) -> None:
    memory = aged("barely decays", 0, stability=1e6)
    store.add([memory])
    row = _row(decay_frame(store, as_of=NOW, params=DecayParams(stability_scale=1e3)),
               memory.id)
    assert row["days_to_threshold"] == pytest.approx(1e9 / 0.235 * 3)
    assert row["falls_below_on"] is None


def test_active_only_unless_the_filter_asks(store: MemoryStore) -> None:
    live, gone = aged("live", 5), aged("archived one", 5, status="archived")
    store.add([live, gone])
    assert decay_frame(store, as_of=NOW)["id"].to_list() == [live.id]
    both = decay_frame(store, Filter(status=["active", "archived"]), as_of=NOW)
    assert sorted(both["id"]) == sorted([live.id, gone.id])


def test_an_empty_tenant_gives_an_empty_frame(store: MemoryStore) -> None:
    frame = decay_frame(store, as_of=NOW)
    assert frame.height == 0 and frame.columns[:len(FRAME_COLUMNS)] == list(FRAME_COLUMNS)


def test_bad_threshold_and_params_are_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidConfigError, match="got 3"):
        decay_frame(store, threshold=3)
    with pytest.raises(InvalidConfigError, match="DecayParams"):
        decay_frame(store, params={"fsrs_factor": 1})  # type: ignore[arg-type]
