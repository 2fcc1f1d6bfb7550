"""`store_stats`: what is in one tenant of a store and how healthy it is, in one streamed
pass over seven columns (plus one over the content hashes when some look duplicated, and
one over the ids when edges need checking)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.stats.counts import Combinations, labelled
from memory_core.stats.duplicates import HASH_COLUMN, digests, exact_duplicates
from memory_core.store import MemoryStore
from memory_core.store.index_health import IndexHealth, index_health
from memory_core.store.streams import ANY_STATUS

if TYPE_CHECKING:
    import numpy as np

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
    ends = store.edges.endpoint_table()
    if ends.num_rows == 0:
        return 0
    wanted = pc.unique(pa.concat_arrays(
        [ends[name].combine_chunks() for name in ("source_id", "target_id")]))
    found = store.streams.present_ids(wanted)
    if len(found) == len(wanted):  # the usual case: every end is there
        return 0
    missing = pc.filter(wanted, pc.invert(pc.is_in(wanted, value_set=found)))
    lost = pc.or_(pc.is_in(ends["source_id"], value_set=missing),
                  pc.is_in(ends["target_id"], value_set=missing))
    return int(pc.sum(lost).as_py() or 0)


def _combinations(store: MemoryStore) -> tuple[Combinations, list[np.ndarray]]:
    """Memories per combination of the counted columns (one streamed pass), and the
    digests of the active memories' content hashes, batch by batch."""
    import polars as pl

    combos, seen = Combinations(COUNTED), []
    for batch in store.streams.batches([*COUNTED, HASH_COLUMN], ANY_STATUS):
        frame = cast(pl.DataFrame, pl.from_arrow(batch))  # a batch is always a frame
        combos.add(frame)
        seen.append(digests(frame.filter(pl.col("status") == "active")[HASH_COLUMN]))
    return combos, seen


def store_stats(store: MemoryStore) -> StoreStats:
    """Counts by type, project, agent, status and importance, plus health figures."""
    # the edges' ends are looked up while the memories are counted: on two cores the
    # dangling-edge check then costs next to nothing of the wait
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-stats") as pool:
        dangling = pool.submit(dangling_edge_count, store)
        combos, seen = _combinations(store)
        duplicates = exact_duplicates(store, seen)
        dangling_edges = dangling.result()
    status = combos.by("status")
    embedding = combos.by("embedding_status")
    memories = sum(status.values())
    return StoreStats(
        uri=store.uri,
        tenant=store.tenant,
        model_id=store.model_id,
        dimension=store.dimension,
        table_version=store.version,
        memories=memories,
        active=status.get("active", 0),
        edges=store.edges.count(),
        by_type=labelled(combos.by("memory_type", status="active")),
        by_project=labelled(combos.by("project", status="active")),
        by_agent=labelled(combos.by("agent", status="active")),
        by_status=labelled(status),
        by_importance=labelled(combos.by("importance", status="active")),
        by_embedding_status=labelled(embedding),
        pending_embeddings=memories - embedding.get("ok", 0),
        duplicate_groups=duplicates.groups,
        duplicate_memories=duplicates.memories,
        dangling_edges=dangling_edges,
        interrupted_write=store.guard.interrupted_write(),
        index_health=index_health(store),
    )
