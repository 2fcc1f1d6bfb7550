"""The memories a consolidation candidate may hold, read as columns: the tenant's active
observations, events and learnings with a vector that no active reflection consolidates yet
(no `derived_from` edge from one), and the tenant's edges between memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.filters import Filter

if TYPE_CHECKING:
    from memory_core.store import MemoryStore

#: The memory types a reflection consolidates (HADES: "synthesized from multiple
#: observations"; events and learnings are observations of what happened and what was
#: learnt).
ELIGIBLE_TYPES = ("observation", "event", "learning")
REFLECTION = "reflection"
DERIVED_FROM = "derived_from"
#: What the candidates need of each eligible memory (a filter's columns are read too).
COLUMNS = ("id", "content", "content_hash", "created_at", "updated_at", "agent", "project")


@dataclass(frozen=True)
class Pool:
    """The eligible memories: row i of `table` (the columns, no vectors) and of `unit`
    describe the same memory; `edges` are the tenant's active edges (source_id, target_id)."""

    table: pa.Table
    unit: np.ndarray  # n x d float32 unit vectors
    edges: pa.Table

    def __len__(self) -> int:
        return self.table.num_rows

    @property
    def ids(self) -> list[str]:
        return self.column("id")

    @property
    def projects(self) -> list[str | None]:
        return self.column("project")

    @property
    def created_at(self) -> list[datetime]:
        return self.column("created_at")

    def column(self, name: str) -> list[Any]:
        """One column as Python values (cached: the pool is read once per call)."""
        cache = self.__dict__.setdefault("_columns", {})
        if name not in cache:
            cache[name] = self.table[name].to_pylist()
        return cache[name]  # type: ignore[no-any-return]


def consolidated_sources(store: MemoryStore, edges: pa.Table) -> set[str]:
    """The targets of `derived_from` edges from this tenant's active reflections."""
    derived = edges.filter(pc.equal(edges["relation"], DERIVED_FROM))
    if derived.num_rows == 0:
        return set()
    reflections = store.ids(Filter(memory_type=REFLECTION))
    from_reflection = pc.is_in(derived["source_id"], pa.array(sorted(reflections),
                                                              pa.string()))
    return set(derived.filter(from_reflection)["target_id"].to_pylist())


def read_pool(store: MemoryStore, columns: Sequence[str] = ()) -> Pool:
    """The tenant's eligible memories (with `columns` beside `COLUMNS`), ordered by id so
    that every later step is repeatable, and its active edges."""
    edges = store.edges.endpoint_table(with_relation=True)
    wanted = list(dict.fromkeys([*COLUMNS, *columns, "vector"]))
    table = store.scan(wanted, Filter(memory_type=ELIGIBLE_TYPES))
    table = table.filter(table["vector"].is_valid())
    done = consolidated_sources(store, edges)
    if done:
        table = table.filter(pc.invert(pc.is_in(table["id"], pa.array(sorted(done),
                                                                        pa.string()))))
    table = table.sort_by("id")
    if table.num_rows:
        flat = table["vector"].combine_chunks().flatten()
        vectors = np.asarray(flat, dtype=np.float32).reshape(table.num_rows, -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    else:
        unit = np.zeros((0, store.dimension), dtype=np.float32)
    return Pool(table.drop_columns(["vector"]), unit.astype(np.float32, copy=False),
                edges.select(["source_id", "target_id"]))
