"""Helpers of the decay analytics tests: memories at known ages on a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memory_core.model.records import Event, Memory
from memory_core.store import MemoryStore

NOW = datetime(2026, 10, 1, tzinfo=UTC)


def aged(content: str, days: float, memory_type: str = "fact", **fields: Any) -> Memory:
    """A memory created `days` before NOW (never accessed unless `fields` say so)."""
    return Memory.new(content, memory_type, created_at=NOW - timedelta(days=days), **fields)


def cite(store: MemoryStore, memory: Memory, days_ago: float) -> None:
    """A `cite` event of `memory` `days_ago` days before NOW (negative: after it)."""
    store.events.record([Event.new("cite", memory.id, at=NOW - timedelta(days=days_ago))])
