"""`MemoryReads`: reading one tenant's memories (a part of `MemoryStore`).

Lists, counts, look-ups by id, streams and Arrow scans of the memories table, each scoped to
the store's tenant, with archived and superseded memories only when a `Filter` asks for them.
The hot reads (by id, ids) run through `accel/arrow_query.py`; the columns come from the
Lance dataset at hand (`store.latest`).
"""

from __future__ import annotations

import builtins
import shlex
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.codec import memory_from_row
from memory_core.model.errors import InvalidRecordError, MemoryNotFoundError, TenantNotFoundError
from memory_core.model.filters import Filter, in_chunks, sql_in
from memory_core.model.records import Memory
from memory_core.store.accel.arrow_query import collect, query
from memory_core.store.accel.count_cache import VersionCounts
from memory_core.store.accel.current_dataset import LatestDataset
from memory_core.store.streams import BATCH_ROWS
from memory_core.store.tables import StoreTables
from memory_core.store.tokenisation import fts_settings


class MemoryReads:
    """The reads of `MemoryStore`, over the attributes it sets."""

    tables: StoreTables
    tenant: str
    latest: LatestDataset
    _counts: VersionCounts

    @property
    def uri(self) -> str:
        return self.tables.uri

    def tenants(self) -> builtins.list[str]:
        """Every tenant that has memories in this store, sorted (the distinct values of one
        column, folded batch by batch: a million rows take a tenth of a second)."""
        found: set[str] = set()
        column = self.tables.memories.search().select(["tenant"]).limit(None)
        for batch in column.to_batches(BATCH_ROWS):
            found.update(pc.unique(batch.column(0)).to_pylist())
        return sorted(found)

    def require_tenant(self) -> None:
        """Raise `TenantNotFoundError` unless this tenant has memories (or the store is empty
        and the tenant is the default one)."""
        known = self.tenants()
        if self.tenant in known or (not known and self.tenant == "default"):
            return
        # the other tenants' names are theirs: not listed to whoever mistypes one
        raise TenantNotFoundError(
            f"tenant {self.tenant!r} has no memories in {self.uri}; check the name given "
            # quoted for the shell: a hint pasted as given must not run a hostile name
            f"with --tenant or MEMLENS_TENANT, or add a memory with --tenant "
            f"{shlex.quote(self.tenant)} to create it"
        )

    def predicate(self, filter: Filter | None = None) -> str:
        """The LanceDB predicate of `filter` scoped to this tenant (values escaped)."""
        return (filter or Filter()).to_predicate(self.tenant)

    def fts_settings(self) -> dict[str, Any]:
        """The full-text index's tokenizer settings (`tokenisation.fts_settings`)."""
        return fts_settings(self.tables.memories)

    def count(self, filter: Filter | None = None) -> int:
        """How many memories match `filter` (active only unless it asks otherwise)."""
        return self._counts.count(self.tables.memories, self.predicate(filter),
                                  self.latest.version())

    def _query(self, where: str, *, with_vectors: bool) -> Any:
        """A query of the memories matching `where`, every column (vectors when asked)."""
        return (self.tables.memories.search().where(where).limit(None)
                .select(self.memory_columns(with_vectors=with_vectors)))

    def list(
        self,
        filter: Filter | None = None,
        *,
        limit: int | None = None,
        offset: int = 0,
        order_by: str = "created_at",
        descending: bool = True,
        with_vectors: bool = False,
    ) -> builtins.list[Memory]:
        """Matching memories, newest first by default."""
        if order_by not in self.memory_columns():  # `vector` is not an order either
            raise InvalidRecordError(f"cannot order memories by {order_by!r}")
        table = self._query(self.predicate(filter), with_vectors=with_vectors).to_arrow()
        order = "descending" if descending else "ascending"
        table = table.sort_by([(order_by, order), ("id", "ascending")])
        return [memory_from_row(r) for r in table.slice(offset, limit).to_pylist()]

    def ids(self, filter: Filter | None = None) -> set[str]:
        """Ids of the memories matching `filter` (no rows decoded)."""
        rows = collect(query(self.tables.memories).where(self.predicate(filter))
                       .select(["id"]))
        return set(rows["id"].to_pylist())

    def iter_memories(
        self, filter: Filter | None = None, *, with_vectors: bool = False, batch_rows: int = 4096
    ) -> Iterator[Memory]:
        """Matching memories streamed in batches (order not defined)."""
        rows = self._query(self.predicate(filter), with_vectors=with_vectors)
        for batch in rows.to_batches(batch_rows):
            for row in batch.to_pylist():
                yield memory_from_row(row)

    def get_many(self, ids: Sequence[str], *, with_vectors: bool = False) -> dict[str, Memory]:
        """The memories of this tenant with these ids, whatever their status.

        The read asks for the ids alone (the B-tree on `id` finds them) and keeps this
        tenant's rows here: ANDing in the tenant and status bitmaps, a million rows each in a
        large store, cost 15% more per read and selected nothing more.
        """
        found: dict[str, Memory] = {}
        columns = self.memory_columns(with_vectors=with_vectors)
        for chunk in in_chunks(list(dict.fromkeys(ids))):
            table = collect(query(self.tables.memories).where(sql_in("id", chunk))
                            .select(columns))
            for row in table.to_pylist():
                if row["tenant"] == self.tenant:
                    found[row["id"]] = memory_from_row(row)
        return found

    def memory_columns(self, *, with_vectors: bool = False) -> builtins.list[str]:
        """The memories table's columns (`vector` only when asked), from the Lance dataset
        at hand (`table.schema` is a round trip to LanceDB's event loop)."""
        dataset = self.latest.current()
        names = (dataset.schema if dataset is not None else self.tables.memories.schema).names
        return [n for n in names if with_vectors or n != "vector"]

    def get(self, memory_id: str, *, with_vectors: bool = False) -> Memory:
        """The memory with this id (any status); `MemoryNotFoundError` if there is none."""
        found = self.get_many([memory_id], with_vectors=with_vectors)
        if memory_id not in found:
            raise MemoryNotFoundError(
                f"no memory with id {memory_id!r} in tenant {self.tenant!r}; list ids with "
                f"`memlens ls`"
            )
        return found[memory_id]

    def scan(self, columns: Sequence[str], filter: Filter | None = None) -> pa.Table:
        """`columns` of the memories matching `filter` (active only unless it asks
        otherwise), as one Arrow table in no particular order."""
        return (self.tables.memories.search().where(self.predicate(filter))
                .select(list(columns)).limit(None).to_arrow())
