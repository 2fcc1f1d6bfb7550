"""Reads of memory rows by their LanceDB row ids (`store.rows`, a `RowReads`).

The BM25 and vector queries return each row's id in the table with its memory id. Reading
those rows again by row id skips the look-up of each memory id in the `id` B-tree, a third
of a read's time on a large store (search reads its fused candidates and their session
neighbours this way). A row id names a row of the version it was read at: a write in between
can move a row (an update rewrites it), so every reader checks the memory id it gets back
at a row id against the one it expects there, and reads a moved one again by its id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memory_core.model.codec import memory_from_row
from memory_core.model.filters import IN_CHUNK, in_chunks, sql_in, sql_string
from memory_core.model.records import Memory
from memory_core.store import lance_private
from memory_core.store.accel.arrow_query import collect, query
from memory_core.store.memory_lookup import MemoryLookup

if TYPE_CHECKING:
    from memory_core.store.accel import Accelerators


def _of_tenant(table: pa.Table, tenant: str) -> pa.Table:
    """The rows of `table` in `tenant`: checked in Python, a few dozen values (an Arrow
    filter costs more than the check, most of all when every row is the tenant's anyway)."""
    mine = [t == tenant for t in table["tenant"].to_pylist()]
    return table if all(mine) else table.filter(pa.array(mine, type=pa.bool_()))


class RowReads:
    """Reads of one store's memories table by row id, given the table, the tenant, the
    speed-up layer (its row cache and current dataset) and the store's reads by id."""

    def __init__(self, table: Any, tenant: str, accel: Accelerators, lookup: MemoryLookup
                 ) -> None:
        self._table = table
        self._tenant = tenant
        self._accel = accel
        self._lookup = lookup

    def read(self, row_ids: Sequence[int], where: str, columns: Sequence[str]) -> pa.Table:
        """`columns` and `_rowid` of the rows at `row_ids` that match `where` (any tenant
        unless `where` says). A row id no longer in the table reads nothing."""
        wanted = sorted({int(r) for r in row_ids})
        table = self._table
        parts = []
        for at in range(0, len(wanted), IN_CHUNK):
            listed = ", ".join(str(r) for r in wanted[at:at + IN_CHUNK])
            parts.append(collect(query(table).where(f"({where}) AND _rowid IN ({listed})")
                                 .select(list(columns)).with_row_id()))
        if not parts:
            return pa.table({c: [] for c in [*columns, "_rowid"]})
        return pa.concat_tables(parts)

    def take(self, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table:
        """`columns` and `_rowid` of the store's tenant's rows at `row_ids`: `read` under the
        tenant, taken straight from the Lance dataset at the table's version (a take of a
        few dozen rows is several times cheaper than a query by row id).
        When the take cannot serve (a row deleted since, a table the Lance API cannot
        open), it is `read`."""
        return self._take(self._dataset(), row_ids, columns)

    def _take(self, dataset: Any, row_ids: Sequence[int], columns: Sequence[str]
              ) -> pa.Table:
        """`take` from `dataset` (the current one, or None to `read`): the columns the
        store's row cache holds from there, any other (the vector) from the Lance file."""
        wanted = sorted({int(r) for r in row_ids})
        if dataset is not None and wanted:
            got = self._from_cache(dataset, wanted, columns)
            if got is None:
                got = self._from_file(dataset, wanted, columns)
            if got is not None:
                return got
        return self.read(wanted, f"tenant = {sql_string(self._tenant)}", columns)

    def _from_cache(self, dataset: Any, wanted: list[int], columns: Sequence[str]
                    ) -> pa.Table | None:
        """The rows from the row cache (`store/accel/row_cache.py`), the columns it does not hold
        taken from the Lance file for the rows it found; None when it cannot serve."""
        cache = self._accel.row_cache
        held = cache.holds_now(int(dataset.version))
        got = cache.take(dataset, wanted, [c for c in columns if c in held] or columns)
        if got is None:
            return None
        rest = [c for c in columns if c not in got.column_names]
        if not rest:
            return got.select([*columns, "_rowid"])
        if not got.num_rows:
            return None
        found = got["_rowid"].to_pylist()
        more = self._from_file(dataset, found, rest)
        if more is None or more["_rowid"].to_pylist() != found:
            return None  # a write moved rows in between: the file's answer alone
        for column in rest:
            got = got.append_column(column, more[column])
        return got.select([*columns, "_rowid"])

    def _from_file(self, dataset: Any, wanted: list[int], columns: Sequence[str]
                   ) -> pa.Table | None:
        """The tenant's rows taken straight from the Lance dataset, or None when the take
        cannot serve (a row deleted since, a table the Lance API cannot open)."""
        try:
            got = lance_private.take_rows(
                dataset, wanted, [*dict.fromkeys([*columns, "tenant"]), "_rowid"])
        except Exception:  # noqa: BLE001 - a fast path: `read` is the answer
            return None
        return _of_tenant(got, self._tenant).select([*columns, "_rowid"])

    def _dataset(self) -> Any:
        """The memories table as a Lance dataset at its latest version (`store.accel.latest`), or
        None when the table has none to give."""
        return self._accel.latest.current()

    def locate(self, ids: Sequence[str], where: str) -> dict[str, int]:
        """memory id -> row id of the rows with these ids that match `where`."""
        table = self._table
        out: dict[str, int] = {}
        for chunk in in_chunks(list(dict.fromkeys(ids))):
            found = collect(query(table).where(f"({where}) AND {sql_in('id', chunk)}")
                            .select(["id"]).with_row_id())
            out.update(zip(found["id"].to_pylist(), found["_rowid"].to_pylist(), strict=True))
        return out

    def memories(self, found: Mapping[int, str], *, with_vectors: bool = False
                 ) -> dict[str, Memory]:
        """The store's tenant's memories at these row ids (row id -> memory id, as a query
        returned them): `MemoryStore.get_many` without the id look-ups. A row that moved
        since is read by its id."""
        table = self._take(self._dataset(), list(found),
                           self._lookup.memory_columns(with_vectors=with_vectors))
        out: dict[str, Memory] = {}
        for row in table.to_pylist():
            if found.get(row.pop("_rowid")) == row["id"]:
                out[row["id"]] = memory_from_row(row)
        missing = [i for i in found.values() if i not in out]
        if missing:
            out.update(self._lookup.get_many(missing, with_vectors=with_vectors))
        return out
