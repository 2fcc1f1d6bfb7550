"""The memories a map shows: their fields and vectors read from the store, sorted by id, and
how many had no usable vector."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore

#: The memory fields a map's frame carries besides the coordinates (the page colours by
#: them; `content` is whole, the page clips it).
FIELDS = ("memory_type", "project", "agent", "status", "importance", "created_at", "content")


@dataclass(frozen=True, eq=False)
class MapInput:
    """What a map is computed from: `fields` (`id` and `FIELDS`, one row per embedded
    memory, sorted by id), `vectors` (float32, one row each, same order) and
    how many selected memories were left out for having no vector (pending, failed) or an
    all-zero one (`zero`, which cosine distance cannot place)."""

    fields: pl.DataFrame
    vectors: np.ndarray
    unembedded: int
    zero: int

    @property
    def skipped(self) -> int:
        """Selected memories not on the map."""
        return self.unembedded + self.zero


def load_input(store: MemoryStore, filter: Filter | None) -> MapInput:
    """The memories `filter` selects (active only unless it asks otherwise) with their
    vectors, sorted by id so that the same memories always give the same layout."""
    import polars as pl
    import pyarrow.compute as pc

    table = store.scan(("id", *FIELDS, "vector"), filter)
    table = table.take(pc.sort_indices(table, [("id", "ascending")]))
    has_vector = pc.is_valid(table["vector"])
    unembedded = table.num_rows - int(pc.sum(has_vector).as_py() or 0)
    table = table.filter(has_vector)
    dim = store.dimension
    flat = table["vector"].combine_chunks().flatten() if table.num_rows else None
    vectors = (np.asarray(flat.to_numpy(zero_copy_only=False), dtype=np.float32)
               .reshape(-1, dim) if flat is not None else np.zeros((0, dim), np.float32))
    norms = np.linalg.norm(vectors, axis=1)
    usable = norms > 0
    fields = pl.DataFrame(table.drop_columns(["vector"]))
    if not usable.all():
        fields = fields.filter(pl.Series(usable))
    return MapInput(fields=fields, vectors=np.ascontiguousarray(vectors[usable]),
                    unembedded=unembedded, zero=int((~usable).sum()))
