"""The index rule: when a vector index is built, with how many partitions, and the reasons given."""

from __future__ import annotations

from memory_core.store.index_rule import (
    EF_PER_CANDIDATE,
    HNSW_MAX_VECTORS,
    KIND_REASONS,
    QUERY_NPROBES,
    QUERY_REFINE,
    SCALAR_INDEXES,
    VECTOR_THRESHOLD,
    vector_kind,
    vector_plan,
)


def test_below_the_threshold_search_stays_exact_and_says_so() -> None:
    plan = vector_plan(VECTOR_THRESHOLD - 1)
    assert not plan.build
    assert f"{VECTOR_THRESHOLD - 1:,} vectors < the threshold {VECTOR_THRESHOLD:,}" in plan.reason
    assert "exact" in plan.reason


def test_at_the_threshold_an_hnsw_index_is_planned_and_the_reason_names_it() -> None:
    plan = vector_plan(VECTOR_THRESHOLD)
    assert plan.build and plan.kind == "IVF_HNSW_SQ"
    assert "IVF_HNSW_SQ (one partition" in plan.reason
    assert f"probe {QUERY_NPROBES} partitions" in plan.reason


def test_above_the_hnsw_limit_an_ivf_sq_index_is_planned() -> None:
    assert vector_kind(HNSW_MAX_VECTORS) == "IVF_HNSW_SQ"
    assert vector_kind(HNSW_MAX_VECTORS + 1) == "IVF_SQ"
    plan = vector_plan(1_000_000)
    assert plan.build and plan.kind == "IVF_SQ"
    assert "1,000,000 > 250,000 vectors" in plan.reason
    assert f"re-rank {QUERY_REFINE}x" in plan.reason
    assert "beam" not in plan.reason  # IVF_SQ has no HNSW graph
    assert f"a beam of {EF_PER_CANDIDATE}x" in vector_plan(100_000).reason


def test_force_builds_below_the_threshold_and_no_vectors_build_nothing() -> None:
    assert vector_plan(10, force=True).build
    assert "forced" in vector_plan(10, force=True).reason
    assert not vector_plan(0, force=True).build
    assert not vector_plan(500, threshold=1000).build and vector_plan(1000, threshold=1000).build


def test_every_index_kind_has_a_reason() -> None:
    assert {*SCALAR_INDEXES.values(), "FTS", "IVF_HNSW_SQ", "IVF_SQ"} <= set(KIND_REASONS)
