"""Decay formulas against hand-worked values (docs/design/decay.md)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from memory_core.decay import (
    DecayParams,
    composite,
    default_stability,
    edge_strength,
    retrievability,
    usage_factor,
)
from memory_core.model.records import Memory

NOW = datetime(2026, 10, 1, tzinfo=UTC)


def test_retrievability_formula() -> None:
    assert retrievability(0, 10) == 1.0
    assert retrievability(10, 10) == (1 + 0.235) ** -0.5
    assert retrievability(100, 20) == pytest.approx((1 + 0.235 * 5) ** -0.5)


def test_usage_is_capped_at_one_and_a_half() -> None:
    assert usage_factor(0) == 1.0
    assert usage_factor(9) == pytest.approx(1 + 0.1 * math.log(10))
    assert usage_factor(10_000) == 1.5


def test_composite_multiplies_every_factor() -> None:
    memory = Memory.new("a pattern about caches", "pattern", importance="important",
                        stability=30.0, created_at=NOW - timedelta(days=60),
                        access_count=4, last_accessed_at=NOW - timedelta(days=3))
    factors = composite(memory, NOW, pattern_match=True, cited_at=NOW - timedelta(days=6))
    r = (1 + 0.235 * 3 / 30) ** -0.5
    usage = 1 + 0.1 * math.log(5)
    assert factors.retrievability == pytest.approx(r)
    assert factors.usage == pytest.approx(usage)
    assert (factors.anchor, factors.pattern, factors.citation) == (1.15, 1.2, 1.1)
    assert factors.composite == pytest.approx(r * usage * 1.15 * 1.2 * 1.1)


def test_never_accessed_decays_from_creation_and_gets_no_citation() -> None:
    memory = Memory.new("old fact", "fact", stability=10.0,
                        created_at=NOW - timedelta(days=40))
    factors = composite(memory, NOW, pattern_match=True)
    assert factors.retrievability == pytest.approx((1 + 0.235 * 4) ** -0.5)
    assert (factors.pattern, factors.citation, factors.usage) == (1.0, 1.0, 1.0)


def test_citation_comes_from_a_cite_event_within_seven_days_not_from_a_recall() -> None:
    memory = Memory.new("recalled yesterday, never cited", "fact", stability=30.0,
                        created_at=NOW - timedelta(days=40), access_count=1,
                        last_accessed_at=NOW - timedelta(days=1))
    assert composite(memory, NOW).citation == 1.0
    assert composite(memory, NOW, cited_at=NOW - timedelta(days=7)).citation == 1.1
    assert composite(memory, NOW, cited_at=NOW - timedelta(days=7, seconds=1)).citation == 1.0
    # a cite after the decay clock (a review set in the past) does not count yet
    assert composite(memory, NOW, cited_at=NOW + timedelta(hours=1)).citation == 1.0


def test_what_if_knobs_scale_stability_and_the_fsrs_factor() -> None:
    memory = Memory.new("old fact", "fact", stability=10.0, created_at=NOW - timedelta(days=40))
    params = DecayParams(stability_scale=2.0, fsrs_factor=0.5)
    assert composite(memory, NOW, params=params).retrievability == pytest.approx(
        (1 + 0.5 * 40 / 20) ** -0.5)


def test_constitutional_memories_never_decay() -> None:
    memory = Memory.new("Never store secrets in memory", "principle",
                        importance="constitutional", created_at=NOW - timedelta(days=900))
    assert composite(memory, NOW).composite == 1.0
    assert default_stability("principle", "constitutional") >= 1e9


def test_edge_strength_decays_exponentially() -> None:
    assert edge_strength(0.9, 0.0, 100) == 0.9
    assert edge_strength(0.8, 0.02, 10) == pytest.approx(0.8 * math.exp(-0.2))
