"""`tag_counts`: every tag of a tenant with its use count, for the filter panels' choices,
folded per batch of the `tags` column."""

from __future__ import annotations

import pyarrow.compute as pc

from memory_core.stats.counts import ValueCounts
from memory_core.store import MemoryStore
from memory_core.store.streams import ANY_STATUS


def tag_counts(store: MemoryStore) -> dict[str, int]:
    """Every tag of the tenant's memories (any status) -> how many memories carry it, most
    used first, ties by name."""
    counts = ValueCounts()
    for tags in store.streams.iter_column("tags", ANY_STATUS):
        counts.add(pc.drop_null(pc.list_flatten(tags)))
    return counts.labelled()
