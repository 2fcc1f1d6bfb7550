"""`filter_choices`: what the filter panels offer (types, projects, agents, tags) and how many
memories the tenant holds, in one streamed pass over five columns: all the pages but the
Overview need from the store's contents before their first query (a third of the work of
`store_stats`, which also finds duplicates and dangling edges)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import polars as pl
import pyarrow.compute as pc

from memory_core.stats.counts import Combinations, ValueCounts, labelled
from memory_core.store import MemoryStore
from memory_core.store.streams import ANY_STATUS

#: Counted per combination: types, projects and agents of the active memories.
COUNTED = ("status", "memory_type", "project", "agent")


@dataclass(frozen=True)
class FilterChoices:
    """The values a filter can choose among, each with its count, most frequent first."""

    #: Memories of the tenant, any status.
    memories: int
    #: Active memories by type, project and agent (`StoreStats`' fields of the same names).
    by_type: dict[str, int] = field(default_factory=dict)
    by_project: dict[str, int] = field(default_factory=dict)
    by_agent: dict[str, int] = field(default_factory=dict)
    #: Every tag of the tenant's memories (any status) -> memories carrying it.
    tags: dict[str, int] = field(default_factory=dict)


def filter_choices(store: MemoryStore) -> FilterChoices:
    """The tenant's types, projects, agents and tags with their counts (see the class)."""
    combos, tags = Combinations(COUNTED), ValueCounts()
    for batch in store.streams.batches([*COUNTED, "tags"], ANY_STATUS):
        combos.add(cast(pl.DataFrame, pl.from_arrow(batch.drop_columns(["tags"]))))
        tags.add(pc.drop_null(pc.list_flatten(batch.column("tags"))))
    return FilterChoices(
        memories=sum(combos.by("status").values()),
        by_type=labelled(combos.by("memory_type", status="active")),
        by_project=labelled(combos.by("project", status="active")),
        by_agent=labelled(combos.by("agent", status="active")),
        tags=tags.labelled(),
    )
