"""The index rule: when a vector index is built, with how many partitions, and the reasons given."""

from __future__ import annotations

from memory_core.store.index_rule import (
    KIND_REASONS,
    PARTITION_ROWS,
    SCALAR_INDEXES,
    VECTOR_THRESHOLD,
    vector_partitions,
    vector_plan,
)


def test_below_the_threshold_search_stays_exact_and_says_so() -> None:
    plan = vector_plan(VECTOR_THRESHOLD - 1)
    assert not plan.build
    assert f"{VECTOR_THRESHOLD - 1:,} vectors < the threshold {VECTOR_THRESHOLD:,}" in plan.reason
    assert "exact" in plan.reason


def test_at_the_threshold_an_index_is_planned_with_its_partitions_in_the_reason() -> None:
    plan = vector_plan(VECTOR_THRESHOLD)
    assert plan.build and plan.partitions == 1
    assert "IVF_HNSW_SQ in 1 partition " in plan.reason


def test_partitions_grow_with_the_store_one_per_partition_rows() -> None:
    assert vector_partitions(0) == 1
    assert vector_partitions(PARTITION_ROWS) == 1
    assert vector_partitions(1_000_000) == round(1_000_000 / PARTITION_ROWS)
    assert vector_partitions(10_000_000) == round(10_000_000 / PARTITION_ROWS)
    assert "partitions" in vector_plan(10_000_000).reason


def test_force_builds_below_the_threshold_and_no_vectors_build_nothing() -> None:
    assert vector_plan(10, force=True).build
    assert "forced" in vector_plan(10, force=True).reason
    assert not vector_plan(0, force=True).build
    assert not vector_plan(500, threshold=1000).build and vector_plan(1000, threshold=1000).build


def test_every_scalar_kind_has_a_reason() -> None:
    assert set(SCALAR_INDEXES.values()) <= set(KIND_REASONS)
