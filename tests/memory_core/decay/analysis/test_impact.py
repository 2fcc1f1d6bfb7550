"""`decay_impact`: one query with decay on and off, ranks, shifts and the main factor."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memory_core.decay import DecayFactors, DecayParams, composite
from memory_core.decay.analysis import decay_impact
from memory_core.decay.analysis.impact import NO_FACTOR, main_factor
from memory_core.model.errors import InvalidConfigError
from memory_core.retrieval.config import preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.memory_core.decay.analysis.conftest import NOW, aged


def test_main_factor_is_the_largest_log() -> None:
    # |ln 0.7| = 0.357 > ln 1.3 = 0.262
    assert main_factor(DecayFactors(0.7, 1.0, 1.3, 1.0, 1.0, 0.91)) == "retrievability"
    # ln 1.3 = 0.262 > |ln 0.8| = 0.223
    assert main_factor(DecayFactors(0.8, 1.0, 1.3, 1.0, 1.0, 1.04)) == "anchor"
    assert main_factor(DecayFactors(0.99, 1.0, 1.0, 1.2, 1.1, 1.307)) == "pattern"
    assert main_factor(DecayFactors(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)) == NO_FACTOR


@pytest.fixture
def cache_notes(store: MemoryStore) -> None:
    store.add([
        aged("cache eviction policy lru old", 900, stability=5.0),
        aged("cache eviction policy lru ancient", 1200, stability=5.0),
        aged("cache eviction policy fifo fresh", 1, stability=30.0),
        aged("cache eviction policy ttl fresh", 2, stability=30.0),
        aged("cache eviction policy pattern", 1, "pattern", tags=["cache"]),
        aged("cache eviction policy rule", 2000, "principle", importance="constitutional"),
    ])


def test_ranks_with_and_without_decay(store: MemoryStore, cache_notes: None) -> None:
    # RRF and ADR-002's plain multiplication (decay_weight 1), strong enough to push the
    # ancient exact match out of the top 4; the default prior (0.3) only reorders near-ties
    config = preset("hybrid_rrf").with_changes(use_graph=True, use_decay=True,
                                               decay_weight=1.0)
    impact = decay_impact(store, "cache eviction policy lru", config, as_of=NOW, limit=4)
    assert impact.query == "cache eviction policy lru" and impact.as_of == NOW
    on = search(store, impact.query, None, config, 4, now=NOW)
    off = search(store, impact.query, None, replace(config, use_decay=False), 4, now=NOW)
    ranked = [r for r in impact.rows if r.rank_with is not None]
    assert [r.id for r in ranked] == [h.memory.id for h in on]
    assert [r.score_with for r in ranked] == [h.score for h in on]
    assert {r.id: r.rank_without for r in impact.rows if r.rank_without} == {
        h.memory.id: h.rank for h in off}
    dropped = [r for r in impact.rows if r.rank_with is None]
    assert dropped and all(r.shift is None and r.rank_without for r in dropped)
    assert impact.rows[len(ranked):] == tuple(dropped)  # after the ranked ones
    for row in impact.rows:
        if row.rank_with is not None and row.rank_without is not None:
            assert row.shift == row.rank_without - row.rank_with
    by_content = {r.content: r for r in impact.rows}
    old = by_content["cache eviction policy lru ancient"]
    assert old.main_factor == "retrievability" and old.rank_with is None
    expected = composite(store.get(old.id), NOW)
    assert old.composite == pytest.approx(expected.composite)
    assert old.factors["retrievability"] == pytest.approx((1 + 0.235 * 1200 / 5) ** -0.5)
    gentle = decay_impact(store, "cache eviction policy lru", as_of=NOW, limit=4)
    assert by_content["cache eviction policy lru ancient"].id in {
        r.id for r in gentle.rows if r.rank_with is not None}
    frame = impact.to_frame()
    assert frame.height == len(impact.rows)
    assert frame["main_factor"].to_list() == [r.main_factor for r in impact.rows]


def test_a_pattern_in_context_is_moved_by_the_pattern_factor(
        store: MemoryStore, cache_notes: None) -> None:
    impact = decay_impact(store, "cache eviction policy", as_of=NOW, limit=6)
    by_content = {r.content: r for r in impact.rows}
    assert by_content["cache eviction policy pattern"].main_factor == "pattern"
    assert by_content["cache eviction policy rule"].main_factor == NO_FACTOR


def test_the_config_knobs_are_kept(store: MemoryStore, cache_notes: None) -> None:
    config = replace(preset("hybrid"), decay=DecayParams(stability_scale=1000.0))
    impact = decay_impact(store, "cache eviction policy lru", config, as_of=NOW, limit=6)
    old = next(r for r in impact.rows if r.content.endswith("ancient"))
    assert old.factors["retrievability"] == pytest.approx(
        (1 + 0.235 * 1200 / 5000) ** -0.5)


def test_bad_arguments_are_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidConfigError, match="limit"):
        decay_impact(store, "x", limit=0)
    with pytest.raises(InvalidConfigError, match="RankingConfig"):
        decay_impact(store, "x", "full")  # type: ignore[arg-type]
