"""`Hit` and `SearchResults` as values: a sequence of hits that compares by what it says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_core.model.records import Memory
from memory_core.retrieval.config import DEFAULT_PRESET, preset
from memory_core.retrieval.results import EngineEvidence, Hit, SearchResults

NOW = datetime(2026, 10, 1, tzinfo=UTC)


def _hit(doc_id: str, rank: int = 1) -> Hit:
    memory = Memory.new(f"memory {doc_id}", id=doc_id, created_at=NOW)
    return Hit(memory=memory, rank=rank, engines={"bm25": EngineEvidence(rank, 2.0, 1 / 61)},
               fused_sum=1 / 61, bonus=1.0, decay=1.0, mmr_adjustment=0.0, score=1 / 61)


def test_results_with_different_hits_are_unequal_and_equal_ones_equal() -> None:
    a = SearchResults((_hit("a"), _hit("b", 2)), query="q", elapsed_ms=3.0)
    assert a == SearchResults((_hit("a"), _hit("b", 2)), query="q", elapsed_ms=9.0)
    assert a != SearchResults((_hit("a"), _hit("c", 2)), query="q", elapsed_ms=3.0)
    assert a != SearchResults((_hit("a"),), query="q", elapsed_ms=3.0)
    assert a != SearchResults((_hit("b", 2), _hit("a")), query="q", elapsed_ms=3.0)


@pytest.mark.parametrize("change", [
    {"query": "other"},
    {"config": preset("full")},
    {"degraded": True},
    {"reasons": ("BM25 is off",)},
])
def test_query_config_degraded_and_reasons_count_for_equality(change: dict) -> None:
    kw = {"query": "q", "config": preset("hybrid"), "degraded": False, "reasons": ()}
    assert SearchResults((_hit("a"),), **kw) != SearchResults((_hit("a"),), **{**kw, **change})


def test_results_are_an_immutable_sequence_of_hits() -> None:
    hits = [_hit("a"), _hit("b", 2)]
    results = SearchResults(hits, query="q", reasons=["why"])
    assert len(results) == 2 and results[1] is hits[1] and list(results) == hits
    assert results[:1] == (hits[0],) and results.reasons == ("why",)
    assert hits[0] in results and results.index(hits[1]) == 1
    assert results != hits  # a plain list of hits says nothing of the query or config
    assert not SearchResults() and SearchResults().config == preset(DEFAULT_PRESET)
    with pytest.raises(AttributeError):
        results.query = "changed"


def test_a_hit_explains_the_parts_of_its_score() -> None:
    hit = _hit("a")
    assert hit.explain() == {"rank": 1, "score": 1 / 61, "fused_sum": 1 / 61, "bonus": 1.0,
                             "decay": 1.0, "mmr_adjustment": 0.0,
                             "engines": {"bm25": {"rank": 1, "score": 2.0,
                                                  "contribution": 1 / 61}}}
