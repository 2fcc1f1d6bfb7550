"""The over-time chart's and the filter panels' folds on the hand-made two-tenant store."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

from memory_core.stats import NONE, ValueCounts, filter_choices, memories_over_time, store_stats
from memory_core.store import MemoryStore


def test_written_per_week_and_type_any_status(two_tenants: MemoryStore,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.streams.BATCH_ROWS", 2)
    rows = memories_over_time(two_tenants).rows()
    monday = lambda d: datetime(2026, 3, d, tzinfo=UTC)  # noqa: E731
    # weeks start on Monday: 2 March, 9 March, 16 March 2026
    assert rows == [(monday(2), "decision", 2),
                    (monday(9), "decision", 2), (monday(9), "fact", 3),
                    (monday(16), "observation", 1)]


def test_over_time_of_an_empty_tenant_has_the_columns(store: MemoryStore) -> None:
    frame = memories_over_time(store, every="1d")
    assert frame.is_empty() and frame.schema == {"period": pl.Datetime("us", "UTC"),
                                                 "memory_type": pl.Utf8, "count": pl.UInt32}


@pytest.mark.parametrize("batch_rows", [65_536, 1])
def test_filter_choices_are_the_stats_own_and_every_tag(
        two_tenants: MemoryStore, batch_rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.streams.BATCH_ROWS", batch_rows)
    choices, stats = filter_choices(two_tenants), store_stats(two_tenants)
    assert choices.memories == stats.memories == 8
    assert (choices.by_type, choices.by_project, choices.by_agent) == (
        stats.by_type, stats.by_project, stats.by_agent)
    # auth: a1, a2, a4; race, tokens, cache (archived r1), offline (pending p1): once each;
    # acme's tag is acme's
    assert choices.tags == {"auth": 3, "cache": 1, "offline": 1, "race": 1, "tokens": 1}
    assert list(choices.tags)[0] == "auth"


def test_an_empty_tenant_offers_nothing(store: MemoryStore) -> None:
    choices = filter_choices(store)
    assert choices.memories == 0 and choices.by_type == choices.tags == {}


def test_value_counts_fold_batches_and_name_nulls() -> None:
    import pyarrow as pa

    counts = ValueCounts()
    counts.add(pa.array(["b", None, "a"]))
    counts.add(pa.array(["b", "a", None, "c"]))
    counts.add(pa.array([], pa.string()))
    assert counts.labelled() == {NONE: 2, "a": 2, "b": 2, "c": 1}
