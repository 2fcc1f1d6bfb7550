"""The tenant's memory rows held in memory per table version, for reads by row id.

A search reads rows by the row ids its engines returned: the ten hits (every column but the
vector), the session neighbours' texts and vectors, and the filter columns of the neighbours
no engine returned. Taken from the Lance file each column of a row is its own small read and
decode, a real share of a search's time for the hits' 21 columns and the neighbours'; the
same rows taken from an Arrow table in memory cost a small fraction of that
(docs/decisions/0003-row-cache.md).

So the store keeps its tenant's rows as one Arrow table for the table's latest version,
scanned on a background thread once a version has been read by row id `WARM_READS` times: a
one-shot command that runs one search never pays for it, a page, a notebook, `eval` or the
bench do after their third search. Until the rows are in, and after any write (from this process
or another: every read checks the latest version), reads go to the Lance file as before, so
the cache never answers for a version it was not read at and never makes a read wait.

A scan reads in batches and stops between two when the process exits (a thread still inside
Lance's native scan at exit aborts the interpreter); a scan that `invalidate` overtook is
not kept, nor is an older version's once a newer one is read, so at most one version's rows
are held.

Vectors are held only up to `MAX_VECTOR_ROWS` rows (1.5 KiB a row at 384 dimensions, three
times the rest), nothing above `MAX_CACHED_ROWS`; a read that asks for a column the cache
does not hold takes that column from the Lance file.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memory_core.model.filters import Condition, sql_string

log = logging.getLogger(__name__)

#: Above this many rows in the memories table (every tenant's) nothing is held.
MAX_CACHED_ROWS = 2_000_000
#: Above this many rows the vectors are not held (1.5 KiB a row at 384 dimensions).
MAX_VECTOR_ROWS = 250_000
#: Reads by row id of one version before its rows are scanned (a search makes two or three).
WARM_READS = 8
#: Rows per batch of the scan: a scan stops between two batches when the process exits.
SCAN_BATCH = 8192

#: Set when the process exits: scans in progress stop at their next batch.
_EXITING = threading.Event()
_BUILDERS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


@atexit.register
def _stop_scans() -> None:
    """Stop the scans in progress before the interpreter finalizes: a daemon thread still
    inside Lance's native scan when the process exits aborts it (SIGABRT)."""
    _EXITING.set()
    for builder in list(_BUILDERS):
        builder.join(30)


class _Stopped(Exception):
    """The process is exiting: the scan stopped."""


class RowCache:
    """One tenant's memory rows at the latest table version, held once warm."""

    def __init__(self, tenant: str, *, max_rows: int = MAX_CACHED_ROWS,
                 vector_rows: int = MAX_VECTOR_ROWS, warm_reads: int = WARM_READS,
                 background: bool = True, enabled: bool = True) -> None:
        self._tenant = tenant
        self._enabled = enabled  # off: nothing is ever held, every read goes to the file
        self._max_rows = max_rows
        self._vector_rows = vector_rows
        self._warm_reads = warm_reads
        self._background = background  # False: scan in the reading thread (tests)
        self._version: int | None = None  # the version `_rows` was read at
        self._rows: HeldRows | None = None
        self._reads: tuple[int | None, int] = (None, 0)  # (version, reads of it)
        self._generation = 0  # bumped by `invalidate`: a scan begun before is not kept
        self._builder: threading.Thread | None = None
        self._lock = threading.Lock()  # the pages share a store between sessions' threads

    def take(self, dataset: Any, row_ids: Sequence[int], columns: Sequence[str]
             ) -> pa.Table | None:
        """`columns` and `_rowid` of the tenant's rows at `row_ids` (sorted, distinct) in
        `dataset` (the memories table at its latest version), in that order; None when the
        cache cannot answer yet (rows not held for this version, or not this column)."""
        rows = self._at(int(dataset.version), dataset)
        if rows is None or not rows.holds(columns):
            return None
        return rows.take(row_ids, columns)

    def holds_now(self, version: int) -> frozenset[str]:
        """The columns held for `version` (none while its rows are not in)."""
        rows = self.held(version)
        return rows.columns if rows is not None else frozenset()

    def held(self, version: int) -> HeldRows | None:
        """The rows held for `version`, or None while they are not in (not a read: it
        does not count towards warming a version up)."""
        with self._lock:
            return self._rows if self._version == version else None

    def _at(self, version: int, dataset: Any) -> HeldRows | None:
        if not self._enabled:
            return None
        with self._lock:
            if version == self._version:
                return self._rows
            if self._version is not None and version > self._version:
                # an older version's rows never answer again: free them now
                self._version, self._rows = None, None
            seen, reads = self._reads
            reads = reads + 1 if seen == version else 1
            self._reads = (version, reads)
            if (reads < self._warm_reads or _EXITING.is_set()
                    or (self._builder and self._builder.is_alive())):
                return None
            generation = self._generation
            if self._background:
                self._builder = threading.Thread(
                    target=self._build, args=(dataset, version, generation),
                    name="memlens-row-cache", daemon=True)
                _BUILDERS.add(self._builder)
                self._builder.start()
                return None
        self._build(dataset, version, generation)
        with self._lock:
            return self._rows if self._version == version else None

    def _build(self, dataset: Any, version: int, generation: int) -> None:
        try:
            rows = HeldRows.read(dataset, self._tenant, self._max_rows, self._vector_rows)
        except _Stopped:
            return
        except Exception:  # noqa: BLE001 - reads go to the Lance file instead
            log.debug("row cache: could not read version %s", version, exc_info=True)
            rows = None
        with self._lock:
            # kept unless invalidated meanwhile or a newer version's rows are in already
            if generation == self._generation and (self._version is None
                                                   or version > self._version):
                self._version, self._rows = version, rows

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a scan in progress (tests, benches); whether none is running now."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
        return builder is None or not builder.is_alive()

    @property
    def version(self) -> int | None:
        """The table version the rows held were read at (None when none are)."""
        return self._version

    def invalidate(self) -> None:
        """Forget the rows; reads go to the file until a version warms up again."""
        with self._lock:
            self._version, self._rows, self._reads = None, None, (None, 0)
            self._generation += 1


class HeldRows:
    """The rows of one version in scan order, with their row ids sorted for look-ups, and
    what they say of the whole table at that version: whether every row is the tenant's
    (`whole`), which statuses occur (`statuses`) and whether the vectors have an ANN index
    (`vector_indexed`)."""

    def __init__(self, table: pa.Table, row_ids: np.ndarray, *, tenant: str,
                 whole: bool, vector_indexed: bool | None = False) -> None:
        order = (None if len(row_ids) < 2 or bool(np.all(row_ids[1:] > row_ids[:-1]))
                 else np.argsort(row_ids, kind="stable"))
        self._held = table
        self.columns = frozenset(table.column_names)
        self._sorted = row_ids if order is None else row_ids[order]
        self._order = order  # sorted position -> scan index (None: the same)
        self.tenant = tenant
        self.whole = whole
        #: whether the version has an ANN index on the vectors (None: could not tell)
        self.vector_indexed = vector_indexed
        #: rows of each status (None: unknown: no status column, or a NULL status, which no
        #: condition admits)
        self.status_counts: dict[str, int] | None = None
        if "status" in table.column_names and table["status"].null_count == 0:
            counts = pc.value_counts(table["status"]).to_pylist()
            self.status_counts = {c["values"]: int(c["counts"]) for c in counts}

    @property
    def statuses(self) -> frozenset[str] | None:
        """The statuses that occur (None: unknown, as `status_counts`)."""
        counts = self.status_counts
        return frozenset(counts) if counts is not None else None

    def share(self, condition: Condition) -> float:
        """The share of the table's rows at this version that a status condition admits
        (0 when the held rows cannot tell: another tenant's rows, an unknown status)."""
        counts = self.status_counts
        if not self.whole or counts is None or condition.column != "status" \
                or condition.op != "in" or not self._held.num_rows:
            return 0.0
        return sum(counts.get(s, 0) for s in condition.value) / self._held.num_rows

    def always(self, condition: Condition) -> bool:
        """Whether every row of the table at this version satisfies `condition`, so that
        a query of this version needs no pre-filter on it: a tenant condition naming this
        tenant when every row is its, a status condition naming every status that occurs."""
        if not self.whole or condition.op != "in":
            return False
        if condition.column == "tenant":
            return self.tenant in condition.value
        if condition.column == "status" and self.status_counts is not None:
            return set(self.status_counts) <= set(condition.value)
        return False

    @classmethod
    def read(cls, dataset: Any, tenant: str, max_rows: int, vector_rows: int
             ) -> HeldRows | None:
        """The tenant's rows of `dataset`, or None when the table has more than `max_rows`
        (the vectors only when it has at most `vector_rows`)."""
        count = dataset.count_rows()
        if count > max_rows:
            return None
        columns = [f.name for f in dataset.schema if f.name != "vector" or count <= vector_rows]
        scanner = dataset.scanner(columns=columns, with_row_id=True, batch_size=SCAN_BATCH,
                                  filter=f"tenant = {sql_string(tenant)}")
        batches = []
        for batch in scanner.to_batches():
            if _EXITING.is_set():
                raise _Stopped
            batches.append(batch)
        table = pa.Table.from_batches(batches, schema=scanner.projected_schema)
        table = table.combine_chunks()
        row_ids = np.asarray(table["_rowid"].to_numpy(zero_copy_only=False), dtype=np.uint64)
        return cls(table.drop_columns(["_rowid"]), row_ids, tenant=tenant,
                   whole=table.num_rows == count, vector_indexed=_vector_indexed(dataset))

    def holds(self, columns: Sequence[str]) -> bool:
        return all(c in self.columns for c in columns)

    def take(self, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table:
        """`columns` and `_rowid` of the rows held at `row_ids`, in that order."""
        wanted = np.asarray(row_ids, dtype=np.uint64)
        at = np.searchsorted(self._sorted, wanted)
        inside = at < len(self._sorted)
        found = np.zeros(len(wanted), dtype=bool)
        found[inside] = self._sorted[at[inside]] == wanted[inside]
        at = at[found]
        index = at if self._order is None else self._order[at]
        found_ids = pa.array(wanted[found], type=pa.uint64())
        if not columns:
            return pa.table({"_rowid": found_ids})
        got = self._held.select(list(dict.fromkeys(columns))).take(
            pa.array(index, type=pa.int64()))
        return got.append_column("_rowid", found_ids)


def _vector_indexed(dataset: Any) -> bool | None:
    """Whether `dataset` has an index on its `vector` column; None when Lance cannot say."""
    try:
        return any("vector" in index.field_names for index in dataset.describe_indices())
    except Exception:  # noqa: BLE001 - the held rows serve reads all the same
        log.debug("row cache: could not list the vector index", exc_info=True)
        return None
