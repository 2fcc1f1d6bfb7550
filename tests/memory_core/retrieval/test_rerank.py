"""Stage 3, decay and MMR over fused candidates, with oracles worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.config import preset
from memory_core.retrieval.fusion import fuse
from memory_core.retrieval.rerank import (
    Scored,
    apply_decay,
    decay_prior,
    diversify,
    pool_size,
    rerank,
)

NOW = datetime(2026, 10, 1, tzinfo=UTC)
#: RRF without context, and ADR-002's plain multiplication by the composite (decay_weight
#: 1): the configs the hand-worked oracles below were written for
HYBRID = preset("hybrid_rrf")
FULL = HYBRID.with_changes(use_graph=True, use_decay=True, decay_weight=1.0)
GENTLE = FULL.with_changes(decay_weight=0.3)


def _memory(doc_id: str, days: float, vector: list[float] | None = None, **kw) -> Memory:
    """A memory last seen `days` ago with a stability of 30 days, so R is easy by hand."""
    return Memory.new(f"memory {doc_id}", id=doc_id, created_at=NOW - timedelta(days=days),
                      stability=30.0, vector=vector, **kw)


def _r(days: float) -> float:
    return (1 + 0.235 * days / 30.0) ** -0.5


def test_decay_reorders_a_near_tie() -> None:
    # a and b tie: each is first in one engine and second in the other
    fused = fuse({"vector": ["a", "b"], "bm25": ["b", "a"]}, FULL)
    tie = 1.10 * (1 / 61 + 1 / 62)
    assert [f.score for f in fused] == [pytest.approx(tie)] * 2
    memories = {"a": _memory("a", days=300), "b": _memory("b", days=1)}
    plain = apply_decay(fused, memories, HYBRID, query="q", flt=Filter(), now=NOW)
    assert [s.doc_id for s in plain] == ["a", "b"]  # the tie goes to the smaller id
    assert [(s.decay, s.factors, s.value) for s in plain] == [(1.0, None, pytest.approx(tie))] * 2
    decayed = apply_decay(fused, memories, FULL, query="q", flt=Filter(), now=NOW)
    assert [s.doc_id for s in decayed] == ["b", "a"]
    assert decayed[0].value == pytest.approx(tie * _r(1))
    assert decayed[1].value == pytest.approx(tie * _r(300))
    assert decayed[1].factors is not None and decayed[1].factors.retrievability == \
        pytest.approx(_r(300))


def test_decay_does_not_bury_a_clearly_more_relevant_memory() -> None:
    # a tops both engines (1.1 * 2/61); c is 40th in one engine only (1/100): a month of
    # decay (R = 0.8998) leaves a far ahead of a fresh c
    fused = fuse({"vector": ["a", *[f"x{i}" for i in range(38)], "c"], "bm25": ["a"]}, FULL)
    memories = {"a": _memory("a", days=30), "c": _memory("c", days=0)}
    scored = apply_decay(fused, memories, FULL, query="q", flt=Filter(), now=NOW)
    assert [s.doc_id for s in scored] == ["a", "c"]  # the x* have no memory: dropped
    assert scored[0].value == pytest.approx(1.10 * 2 / 61 * _r(30))
    assert scored[1].value == pytest.approx(1 / 100)


def test_the_decay_prior_moves_a_score_by_at_most_beta_times_the_composite_gap() -> None:
    assert decay_prior(1.0, 0.3) == 1.0
    assert decay_prior(0.2, 0.3) == pytest.approx(0.7 + 0.3 * 0.2)
    assert decay_prior(0.2, 1.0) == pytest.approx(0.2)  # ADR-002's plain multiplication
    assert decay_prior(0.2, 0.0) == 1.0


def test_a_gentle_prior_keeps_a_clearly_more_relevant_old_memory_above_a_weak_new_one() -> None:
    # a tops both engines (1.1 * 2/61); c is 3rd in one engine (1/63), half a's score or
    # less. A year of decay (R(365) = 0.5436) under the plain multiplication puts c first;
    # the 0.3 prior leaves a ahead, as the old memory is clearly more relevant
    fused = fuse({"vector": ["a", "x", "c"], "bm25": ["a"]}, FULL)
    memories = {"a": _memory("a", days=365), "c": _memory("c", days=0)}
    plain = apply_decay(fused, memories, FULL, query="q", flt=Filter(), now=NOW)
    gentle = apply_decay(fused, memories, GENTLE, query="q", flt=Filter(), now=NOW)
    a, c = 1.10 * 2 / 61, 1 / 63
    assert plain[0].value == pytest.approx(a * _r(365))
    assert gentle[0].doc_id == "a"
    assert gentle[0].value == pytest.approx(a * (0.7 + 0.3 * _r(365)))
    assert gentle[0].decay == pytest.approx(0.7 + 0.3 * _r(365))
    assert gentle[1].value == pytest.approx(c)
    # a near-tie still goes to the fresher memory under the gentle prior
    tie = fuse({"vector": ["a", "b"], "bm25": ["b", "a"]}, GENTLE)
    near = apply_decay(tie, {"a": _memory("a", days=300), "b": _memory("b", days=1)},
                       GENTLE, query="q", flt=Filter(), now=NOW)
    assert [s.doc_id for s in near] == ["b", "a"]


def test_a_pattern_is_in_context_by_the_filter_project_or_a_query_word_tag() -> None:
    fused = fuse({"bm25": ["p", "t", "n", "o"]}, FULL)
    memories = {"p": _memory("p", 0, memory_type="pattern", project="atlas"),
                "t": _memory("t", 0, memory_type="pattern", tags=["Cache"]),
                "n": _memory("n", 0, memory_type="pattern", project="herd", tags=["ci"]),
                "o": _memory("o", 0, project="atlas", tags=["cache"])}  # not a pattern
    scored = apply_decay(fused, memories, FULL, query="the cache policy",
                         flt=Filter(project="atlas"), now=NOW)
    patterns = {s.doc_id: s.factors.pattern for s in scored if s.factors}
    assert patterns == {"p": 1.2, "t": 1.2, "n": 1.0, "o": 1.0}


def test_mmr_pushes_a_near_duplicate_down_and_records_the_adjustment() -> None:
    fused = fuse({"vector": ["a", "b", "c"]}, HYBRID)
    memories = {"a": _memory("a", 0, [1.0, 0.0]), "b": _memory("b", 0, [1.0, 0.0]),
                "c": _memory("c", 0, [0.0, 1.0])}
    scored = apply_decay(fused, memories, HYBRID, query="q", flt=Filter(), now=NOW)
    picks = diversify(scored, lam=0.4, limit=3)
    assert [s.doc_id for s in picks] == ["a", "c", "b"]
    a, b, c = 1 / 61, 1 / 62, 1 / 63
    # objective = 0.4 * rel - 0.6 * max_sim * top; the adjustment is objective - rel
    assert picks[0].mmr_adjustment == pytest.approx(0.4 * a - a)
    assert picks[1].mmr_adjustment == pytest.approx(0.4 * c - c)
    assert picks[2].mmr_adjustment == pytest.approx((0.4 * b - 0.6 * 1.0 * a) - b)
    assert [s.score for s in picks] == [pytest.approx(0.4 * a), pytest.approx(0.4 * c),
                                       pytest.approx(0.4 * b - 0.6 * a)]
    assert [s.value for s in picks] == [pytest.approx(v) for v in (a, c, b)]


def test_rerank_cuts_at_the_limit_with_or_without_mmr() -> None:
    fused = fuse({"vector": ["a", "b", "c"]}, HYBRID)
    memories = {d: _memory(d, 0, v) for d, v in
                (("a", [1.0, 0.0]), ("b", [1.0, 0.0]), ("c", [0.0, 1.0]))}
    kw = {"query": "q", "flt": Filter(), "now": NOW, "limit": 2}
    assert [s.doc_id for s in rerank(fused, memories, HYBRID, **kw)] == ["a", "b"]
    mmr_on = HYBRID.with_changes(use_mmr=True)
    ranked = rerank(fused, memories, mmr_on, **kw)
    assert [s.doc_id for s in ranked] == ["a", "c"]
    assert all(isinstance(s, Scored) and s.mmr_adjustment < 0 for s in ranked)


def test_the_pool_widens_only_when_decay_or_mmr_can_promote() -> None:
    assert pool_size(HYBRID, 10) == 10
    assert pool_size(FULL, 10) == 30  # max(3 * 10, 10 + 20)
    assert pool_size(HYBRID.with_changes(use_mmr=True), 3) == 23  # max(9, 23)
