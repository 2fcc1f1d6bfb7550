"""`store_stats`: what is in one tenant of a store and how healthy it is, in one streamed
pass over seven columns (plus one over the content hashes when some look duplicated, and
one over the ids when edges need checking)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.stats.counts import labelled
from memory_core.stats.duplicates import HASH_COLUMN, digests, exact_duplicates
from memory_core.store import MemoryStore
from memory_core.store.index_health import IndexHealth, index_health
from memory_core.store.streams import ANY_STATUS

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

#: The columns counted: status and embedding_status over every memory of the tenant, the
#: others over its active memories.
COUNTED = ("status", "embedding_status", "memory_type", "project", "agent", "importance")


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
    #: Whether the memories table has outgrown its indexes (every tenant's rows).
    index_health: IndexHealth | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (for `--json`)."""
        out = dict(self.__dict__)
        out["index_health"] = self.index_health.to_dict() if self.index_health else None
        return out


def dangling_edge_count(store: MemoryStore) -> int:
    """Active edges of the tenant with an endpoint that is not one of its memories (any
    status): the endpoints are looked up in the table, not in a set of every id."""
    ends = store.edge_endpoint_table()
    if ends.num_rows == 0:
        return 0
    found = store.streams.present_ids(pa.concat_arrays(
        [ends[name].combine_chunks() for name in ("source_id", "target_id")]))
    held = pc.and_(pc.is_in(ends["source_id"], value_set=found),
                   pc.is_in(ends["target_id"], value_set=found))
    return ends.num_rows - int(pc.sum(held).as_py() or 0)


def _combinations(store: MemoryStore) -> tuple[pl.DataFrame, list[np.ndarray]]:
    """Memories per combination of the counted columns (one streamed pass; a combination
    table is small where the columns have few values, and never more rows than memories),
    and the digests of the active memories' content hashes, batch by batch."""
    import polars as pl

    parts, seen = [], []
    for batch in store.streams.batches([*COUNTED, HASH_COLUMN], ANY_STATUS):
        frame = cast(pl.DataFrame, pl.from_arrow(batch))  # a batch is always a frame
        parts.append(frame.group_by(COUNTED).len(name="n"))
        seen.append(digests(frame.filter(pl.col("status") == "active")[HASH_COLUMN]))
    if not parts:
        return pl.DataFrame(schema={**{c: pl.Utf8 for c in COUNTED}, "n": pl.UInt32}), seen
    return pl.concat(parts).group_by(COUNTED).agg(pl.col("n").sum()), seen


def _by(combos: pl.DataFrame, column: str) -> dict[Any, int]:
    """value of `column` -> memories, summed over the other columns."""
    import polars as pl

    grouped = combos.group_by(column).agg(pl.col("n").sum())
    return dict(zip(grouped[column].to_list(), grouped["n"].to_list(), strict=True))


def store_stats(store: MemoryStore) -> StoreStats:
    """Counts by type, project, agent, status and importance, plus health figures."""
    import polars as pl

    combos, seen = _combinations(store)
    active = combos.filter(pl.col("status") == "active")
    duplicates = exact_duplicates(store, seen)
    status = _by(combos, "status")
    embedding = _by(combos, "embedding_status")
    memories = sum(status.values())
    return StoreStats(
        uri=store.uri,
        tenant=store.tenant,
        model_id=store.model_id,
        dimension=store.dimension,
        table_version=store.version,
        memories=memories,
        active=status.get("active", 0),
        edges=store.count_edges(),
        by_type=labelled(_by(active, "memory_type")),
        by_project=labelled(_by(active, "project")),
        by_agent=labelled(_by(active, "agent")),
        by_status=labelled(status),
        by_importance=labelled(_by(active, "importance")),
        by_embedding_status=labelled(embedding),
        pending_embeddings=memories - embedding.get("ok", 0),
        duplicate_groups=duplicates.groups,
        duplicate_memories=duplicates.memories,
        dangling_edges=dangling_edge_count(store),
        interrupted_write=store.interrupted_write(),
        index_health=index_health(store),
    )
