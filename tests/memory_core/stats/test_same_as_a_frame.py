"""`store_stats` against the figures a polars frame of every memory gives (what memlens
computed before it streamed): a pseudo-random store, small batches, the same dicts in the
same order."""

from __future__ import annotations

import random

import polars as pl
import pytest

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.stats import filter_choices, memories_over_time, store_stats
from memory_core.store import MemoryStore

COLUMNS = ["id", "status", "memory_type", "project", "agent", "importance",
           "embedding_status", "content_hash", "created_at", "tags"]


def _counts(frame: pl.DataFrame, column: str) -> dict[str, int]:
    if frame.is_empty():
        return {}
    grouped = frame.group_by(column).len().sort(["len", column], descending=[True, False])
    return {str(k) if k is not None else "(none)": int(v) for k, v in grouped.iter_rows()}


@pytest.fixture
def shuffled(store: MemoryStore) -> MemoryStore:
    rng = random.Random(7)
    texts = [f"memory text number {i}" for i in range(40)]  # few texts: many duplicates
    memories = [
        Memory.new(rng.choice(texts), rng.choice(["fact", "decision", "lesson", "pattern"]),
                   project=rng.choice([None, "atlas", "herd", "zeta"]),
                   agent=rng.choice([None, "mason", "iris"]),
                   importance=rng.choice(["normal", "critical", "temporary"]),
                   status=rng.choices(STATUSES, (8, 1, 1))[0],
                   tags=rng.sample(["a", "b", "c", "d"], rng.randint(0, 3)),
                   created_at=f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T08:00:00Z")
        for _ in range(150)
    ]
    store.add(memories, dedup=False)
    return store


def test_stats_match_the_frame(shuffled: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.streams.BATCH_ROWS", 7)
    frame = pl.from_arrow(shuffled.scan(COLUMNS, Filter(status=STATUSES)))
    assert isinstance(frame, pl.DataFrame)
    active = frame.filter(pl.col("status") == "active")
    sizes = active.group_by("content_hash").len().filter(pl.col("len") > 1)
    s = store_stats(shuffled)
    assert (s.memories, s.active) == (frame.height, active.height)
    for got, column, rows in ((s.by_type, "memory_type", active),
                              (s.by_project, "project", active),
                              (s.by_agent, "agent", active),
                              (s.by_importance, "importance", active),
                              (s.by_status, "status", frame)):
        assert list(got.items()) == list(_counts(rows, column).items()), column
    assert (s.duplicate_groups, s.duplicate_memories) == (sizes.height, sizes["len"].sum())
    assert s.duplicate_groups > 5  # the store is built to have many


def test_over_time_and_tags_match_the_frame(shuffled: MemoryStore,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memory_core.store.streams.BATCH_ROWS", 7)
    frame = pl.from_arrow(shuffled.scan(COLUMNS, Filter(status=STATUSES)))
    assert isinstance(frame, pl.DataFrame)
    weekly = (frame.with_columns(pl.col("created_at").dt.truncate("1w").alias("period"))
              .group_by("period", "memory_type").len(name="count")
              .sort("period", "memory_type"))
    assert memories_over_time(shuffled).equals(weekly)
    tags = frame["tags"].explode().drop_nulls().value_counts(name="n")
    expected = sorted(zip(tags["tags"].to_list(), tags["n"].to_list(), strict=True),
                      key=lambda kv: (-kv[1], kv[0]))
    assert list(filter_choices(shuffled).tags.items()) == expected
