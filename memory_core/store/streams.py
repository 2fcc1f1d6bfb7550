"""Streaming reads of one tenant's memories: a few columns as Arrow batches, and which ids
exist, without holding the tenant's rows in memory.

The aggregates of a large store (the Overview's counts, the Search page's tag list, the
dangling-edge check) fold these batches one at a time, so their memory is one batch plus
what they keep, whatever the store's size. Every read is scoped to the store's tenant by the
same predicate as every other read (`Filter.to_predicate`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.filters import IN_CHUNK, Filter
from memory_core.model.schema import STATUSES

#: Rows per batch: large enough that per-batch overhead vanishes, small enough that a batch
#: of a few short columns stays in the low megabytes.
BATCH_ROWS = 65_536

#: Every memory of the tenant, whatever its status.
ANY_STATUS = Filter(status=STATUSES)


class MemoryStreams:
    """Streaming reads of the memories of one store's tenant (`store.streams`), given the
    memories table and the tenant."""

    def __init__(self, table: Any, tenant: str) -> None:
        self._table = table
        self._tenant = tenant

    def batches(self, columns: Sequence[str], filter: Filter | None = None, *,
                batch_rows: int | None = None) -> pa.RecordBatchReader:
        """`columns` of the memories matching `filter` (active only unless it asks
        otherwise), `batch_rows` (default `BATCH_ROWS`) at a time, in no particular order."""
        rows = BATCH_ROWS if batch_rows is None else batch_rows
        if rows < 1:
            raise ValueError(f"batch_rows must be at least 1, got {rows}")
        query = (self._table.search().where((filter or Filter()).to_predicate(self._tenant))
                 .select(list(columns)).limit(None))
        reader: pa.RecordBatchReader = query.to_batches(rows)
        return reader

    def iter_column(self, column: str, filter: Filter | None = None, *,
                    batch_rows: int | None = None) -> Iterator[pa.Array]:
        """One column of the matching memories, one Arrow array per batch."""
        for batch in self.batches([column], filter, batch_rows=batch_rows):
            yield batch.column(0)

    def present_ids(self, ids: pa.Array | Sequence[str]) -> pa.Array:
        """Those of `ids` that are memories of this tenant (any status), each once.

        Few ids (one `IN (...)` list) on a table whose `id` is indexed: one indexed query.
        Otherwise a hash semi-join of the tenant's id column, streamed, against `ids`: one
        pass over one column, holding only `ids` and the matches. For many ids the semi-join
        costs about the same with or without indexes, while an `id IN (...)` list costs time
        per id even with the BTREE index on id.
        """
        table = self._table
        id_type = table.schema.field("id").type
        wanted = pc.unique(pa.array(ids, id_type) if not isinstance(ids, pa.Array)
                           else ids.cast(id_type))
        if len(wanted) == 0:
            return wanted
        if len(wanted) <= IN_CHUNK and self._id_indexed():
            where = Filter(ids=wanted.to_pylist(), status=STATUSES).to_predicate(
                self._tenant)
            found = table.search().where(where).select(["id"]).limit(None).to_arrow()
            return found["id"].combine_chunks().cast(id_type)
        from pyarrow import acero

        source = acero.Declaration("record_batch_reader_source",
                                   acero.RecordBatchReaderSourceNodeOptions(
                                       self.batches(["id"], ANY_STATUS)))
        lookup = acero.Declaration("table_source",
                                   acero.TableSourceNodeOptions(pa.table({"id": wanted})))
        join = acero.Declaration("hashjoin", acero.HashJoinNodeOptions(
            "left semi", ["id"], ["id"]), inputs=[source, lookup])
        return join.to_table()["id"].combine_chunks()

    def _id_indexed(self) -> bool:
        return any(list(index.columns) == ["id"]
                   for index in self._table.list_indices())
