"""What is in a store and how healthy it is: the Overview page and `memlens stats`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from memory_core.columns import names
from memory_core.filters import Filter
from memory_core.records import Memory
from memory_core.schema import STATUSES
from memory_core.store import MemoryStore

#: Every column but the long and nested ones: what the counts and charts group by.
_COLUMNS = names(Memory, exclude=("content", "why", "vector", "metadata"))


@dataclass(frozen=True)
class StoreStats:
    """Counts and health of one tenant of a store."""

    uri: str
    tenant: str
    model_id: str
    dimension: int
    table_version: int
    memories: int
    active: int
    edges: int
    by_type: dict[str, int] = field(default_factory=dict)
    by_project: dict[str, int] = field(default_factory=dict)
    by_agent: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)
    by_importance: dict[str, int] = field(default_factory=dict)
    by_embedding_status: dict[str, int] = field(default_factory=dict)
    pending_embeddings: int = 0
    duplicate_groups: int = 0
    duplicate_memories: int = 0
    dangling_edges: int = 0
    #: A write that died half way (an interrupted import): rolled back when this store was
    #: opened for writing, or waiting for the next write to roll it back.
    interrupted_write: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (for `--json`)."""
        return dict(self.__dict__)


def memory_frame(store: MemoryStore) -> pl.DataFrame:
    """Every memory of the tenant, any status, without content or vectors."""
    table = store.scan(_COLUMNS, Filter(status=STATUSES))
    return pl.from_arrow(table)  # type: ignore[return-value]


def _counts(frame: pl.DataFrame, column: str) -> dict[str, int]:
    if frame.is_empty():
        return {}
    grouped = frame.group_by(column).len().sort(["len", column], descending=[True, False])
    return {str(k) if k is not None else "(none)": int(v) for k, v in grouped.iter_rows()}


def dangling_edge_count(store: MemoryStore, ids: set[str]) -> int:
    """Active edges of the tenant with an endpoint that is not one of its memories."""
    return sum(1 for s, t in store.edge_endpoints() if s not in ids or t not in ids)


def store_stats(store: MemoryStore) -> StoreStats:
    """Counts by type, project, agent, status and importance, plus health figures."""
    frame = memory_frame(store)
    active = frame.filter(pl.col("status") == "active") if not frame.is_empty() else frame
    dup_groups = dup_members = 0
    if not active.is_empty():
        sizes = active.group_by("content_hash").len().filter(pl.col("len") > 1)
        dup_groups, dup_members = sizes.height, int(sizes["len"].sum() or 0)
    embedding = _counts(frame, "embedding_status")
    return StoreStats(
        uri=store.uri,
        tenant=store.tenant,
        model_id=store.model_id,
        dimension=store.dimension,
        table_version=store.version,
        memories=frame.height,
        active=active.height,
        edges=store.count_edges(),
        by_type=_counts(active, "memory_type"),
        by_project=_counts(active, "project"),
        by_agent=_counts(active, "agent"),
        by_status=_counts(frame, "status"),
        by_importance=_counts(active, "importance"),
        by_embedding_status=embedding,
        pending_embeddings=frame.height - embedding.get("ok", 0),
        duplicate_groups=dup_groups,
        duplicate_memories=dup_members,
        dangling_edges=dangling_edge_count(store, set(frame["id"].to_list())),
        interrupted_write=store.interrupted_write(),
    )


def memories_over_time(store: MemoryStore, *, every: str = "1w") -> pl.DataFrame:
    """Memories written per period and type: columns period, memory_type, count."""
    frame = memory_frame(store)
    if frame.is_empty():
        return pl.DataFrame(schema={"period": pl.Datetime("us", "UTC"), "memory_type": pl.Utf8,
                                    "count": pl.UInt32})
    return (
        frame.with_columns(pl.col("created_at").dt.truncate(every).alias("period"))
        .group_by("period", "memory_type")
        .len(name="count")
        .sort("period", "memory_type")
    )
