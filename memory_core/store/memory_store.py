"""`MemoryStore`: the memories, edges, audit and events of one tenant in a LanceDB store.

Every read is scoped to the store's tenant; archived and superseded memories come back only
when a `Filter` asks for them; every write appends an audit row. Writes never fail because the
embedder is missing: such memories are written with `embedding_status="pending"` (ADR-009
in docs/design/seeds.md) and `memlens reembed` fills them in.

The store is one composition. Its own methods are the memories' API: open, identity, reads
(lists, counts, look-ups by id, scans), writes (`add`, `upsert`, `record_access`) and the
write step every write runs in (`writing`). Every other table and view is a public part,
built here from what it needs (its table, the tenant, the write step: `WriteStep`) and never
from this class, with no method of the store forwarding to it:

* `store.edges` (`EdgeTable`): edges, their writes and the cached adjacency;
* `store.audit` (`AuditLog`) and `store.events` (`EventLog`): the audit trail and the events;
* `store.keys` (`KeyIndex`): ids and content hashes, for dedup and id checks;
* `store.guard` (`WriteGuard`): the lock and journal, recovery, scratch folders;
* `store.fts` (`FullTextIndex`) and `store.queries` (`MemoryQueries`): the BM25 index and
  the top-m queries a search runs;
* `store.bulk` (`BulkTables`), `store.changes` (`ChangeTables`), `store.streams`
  (`MemoryStreams`), `store.rows` (`RowReads`): Arrow-level bulk work, curation's change
  sets and version history, streamed columns, reads by row id;
* `store.accel` (`Accelerators`): the speed-up layer's caches, off with `accel=False`.

Nothing outside `memory_core.store` touches the LanceDB tables or the speed-up layer.
"""

from __future__ import annotations

import builtins
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memory_core.embedding import Embedder, load_embedder
from memory_core.model.codec import events_schema, memory_from_row
from memory_core.model.config import Settings
from memory_core.model.errors import (
    InvalidRecordError,
    MemoryNotFoundError,
    ReadOnlyError,
    TenantNotFoundError,
)
from memory_core.model.filters import Filter, in_chunks, sql_in
from memory_core.model.records import Memory
from memory_core.store.accel import Accelerators
from memory_core.store.accel.arrow_query import collect
from memory_core.store.accel.arrow_query import query as arrow_query
from memory_core.store.accel.row_reads import RowReads
from memory_core.store.audit import AuditLog
from memory_core.store.bulk import BulkTables
from memory_core.store.changes import ChangeTables
from memory_core.store.edges import EdgeTable
from memory_core.store.events import EventLog
from memory_core.store.full_text_index import FullTextIndex
from memory_core.store.guard import WriteGuard
from memory_core.store.keys import KeyIndex
from memory_core.store.lock import WriteLock, control_folder
from memory_core.store.object_storage import storage_options
from memory_core.store.queries import MemoryQueries
from memory_core.store.reports import AddReport, UpsertReport
from memory_core.store.snapshot import Snapshot, snapshot
from memory_core.store.streams import BATCH_ROWS, MemoryStreams
from memory_core.store.tables import StoreTables, open_tables
from memory_core.store.writes import MemoryWrites

Progress = Callable[[int], None]


class MemoryStore:
    """The memories of one tenant. Build it with `MemoryStore.open`."""

    def __init__(
        self,
        tables: StoreTables,
        *,
        tenant: str,
        embedder: Embedder,
        read_only: bool = False,
        actor: str = "memlens",
        cache: Path | None = None,
        accel: bool = True,
    ) -> None:
        self.tables = tables
        self.tenant = tenant
        self.embedder = embedder
        self.read_only = read_only
        self.actor = actor
        #: the model cache this handle was opened with (its control folder for a store on
        #: object storage, a read-only handle's scratch space)
        self.model_cache = cache = cache or Settings().model_cache
        #: the speed-up layer (`memory_core.store.accel`), on or off as a whole
        self.accel = Accelerators.build(lambda: self.tables.memories, tenant, enabled=accel)
        self.keys = KeyIndex(tables.memories, tenant)
        self.audit = AuditLog(tables.audit, tenant=tenant, actor=lambda: self.actor, step=self)
        self.events = EventLog(tables.events, tenant, step=self, accel=accel)
        self.edges = EdgeTable(tables.edges, tenant, step=self, audit=self.audit,
                               present=lambda ids: self.get_many(ids).keys())
        self.bulk = BulkTables(tables, tenant, step=self, keys=self.keys,
                               use_model=self.use_model)
        lock = WriteLock.of(control_folder(tables.uri, cache))
        self.guard = WriteGuard(lock, versions=self.table_versions, bulk=self.bulk,
                                audit=self.audit, read_only=lambda: self.read_only,
                                scratch_home=lambda: (self.model_cache / "scratch"
                                                      if self.read_only else lock.folder))
        self.fts = FullTextIndex(tables.memories, step=self, read_only=lambda: self.read_only)
        self.changes = ChangeTables(tables, tenant, step=self, guard=self.guard, fts=self.fts)
        self.queries = MemoryQueries(tables, tenant, self.accel)
        self.rows = RowReads(tables.memories, tenant, self.accel, self)
        self.streams = MemoryStreams(tables.memories, tenant)
        self._writes = MemoryWrites(tables, tenant, actor=lambda: self.actor, keys=self.keys,
                                    audit=self.audit, events=self.events, lookup=self)

    @classmethod
    def open(
        cls,
        uri: str | None = None,
        *,
        tenant: str | None = None,
        embedder: Embedder | None = None,
        read_only: bool | None = None,
        create: bool = True,
        require_tenant: bool = False,
        check_vectors: bool = True,
        settings: Settings | None = None,
        accel: bool | None = None,
    ) -> MemoryStore:
        """Open (or create) the store at `uri` for `tenant`; `None` arguments come from settings.

        With `create=False` (or read-only) a missing store is a `StoreNotFoundError` and
        nothing is created; a writable open still brings an existing store up to date and
        rolls back a dead writer's half-done write (`store.guard`).

        `require_tenant` refuses a tenant that has no memories (reads of a typo would
        otherwise look like an empty store). `accel=False` turns the speed-up layer off
        (`memory_core.store.accel`; default `settings.accel`, MEMLENS_ACCEL).
        """
        settings = settings or Settings.from_env()
        uri = uri or settings.store_uri
        embedder = embedder or load_embedder(settings)
        read_only = settings.read_only if read_only is None else read_only
        tables = open_tables(
            uri,
            model_id=embedder.model_id,
            dimension=embedder.dimension,
            create=create and not read_only,
            writable=not read_only,
            check_vectors=check_vectors,
            storage_options=storage_options(uri, settings),
        )
        store = cls(
            tables,
            tenant=tenant or settings.tenant,
            embedder=embedder,
            read_only=read_only,
            actor=settings.actor,
            cache=settings.model_cache,
            accel=settings.accel if accel is None else accel,
        )
        store.guard.recover_if_interrupted()
        if require_tenant:
            store.require_tenant()
        return store

    # -------------------------------------------------------------- identity
    @property
    def uri(self) -> str:
        """Where the store is (a folder or an object-storage URI)."""
        return self.tables.uri

    @property
    def model_id(self) -> str:
        """The embedding model the store's vectors come from."""
        return self.tables.model_id

    @property
    def dimension(self) -> int:
        """The dimension of the store's vectors."""
        return self.tables.dimension

    @property
    def version(self) -> int:
        """The current version of the memories table."""
        self.tables.memories.checkout_latest()
        return int(self.tables.memories.version)

    def table_versions(self) -> dict[str, int]:
        """The current version of each table (`events` absent from a read-only v1 store)."""
        out = {}
        for name, table in self.tables.named().items():
            table.checkout_latest()
            out[name] = int(table.version)
        return out

    def schemas(self) -> dict[str, pa.Schema]:
        """The Arrow schema of each table, by record kind (memory, edge, audit, event)."""
        events = self.tables.events
        return {"memory": self.tables.memories.schema, "edge": self.tables.edges.schema,
                "audit": self.tables.audit.schema,
                "event": events.schema if events is not None else events_schema()}

    def snapshot(self, *, memories_version: int | None = None) -> Snapshot:
        """The tables pinned at their current versions (memories at `memories_version` when
        given), for readers that must not see later writes."""
        return snapshot(self.tables, memories_version=memories_version)

    # ------------------------------------------------------------ write step
    def writing(self, action: str) -> AbstractContextManager[None]:
        """Run a write as one step: under the store's write lock (other processes wait), with
        a journal of the table versions before it, so that a failure (or, at the next
        write, a `kill -9`) puts every table back (`store.guard`). Reentrant: nested writes
        join the outer one. A read-only handle refuses before any work.
        """
        self.check_writable(action)
        return self.guard.writing(action)

    def check_writable(self, action: str, *, hint: str = "") -> None:
        """Raise `ReadOnlyError` (`ReadOnlyError.refusing`) if this handle is read-only:
        every write path calls it, through `writing` or first thing, before any work."""
        if self.read_only:
            raise ReadOnlyError.refusing(self.uri, action, hint=hint)

    def forget_caches(self) -> None:
        """Drop what this process cached about the tables (after a bulk write)."""
        self.keys.invalidate()
        accel = self.accel
        for part in (accel.sessions, accel.row_cache, accel.counts, accel.latest):
            part.invalidate()

    def use_model(self, embedder: Embedder) -> None:
        """Record that the store's vectors now come from `embedder` (after re-embedding)."""
        self.tables = replace(self.tables, model_id=embedder.model_id,
                              dimension=embedder.dimension)
        self.embedder = embedder

    # ----------------------------------------------------------------- reads
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

    def count(self, filter: Filter | None = None) -> int:
        """How many memories match `filter` (active only unless it asks otherwise)."""
        return self.accel.counts.count(self.tables.memories, self.predicate(filter),
                                       self.accel.latest.version())

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
        rows = collect(arrow_query(self.tables.memories).where(self.predicate(filter))
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
            table = collect(arrow_query(self.tables.memories).where(sql_in("id", chunk))
                            .select(columns))
            for row in table.to_pylist():
                if row["tenant"] == self.tenant:
                    found[row["id"]] = memory_from_row(row)
        return found

    def memory_columns(self, *, with_vectors: bool = False) -> builtins.list[str]:
        """The memories table's columns (`vector` only when asked), from the Lance dataset
        at hand (`table.schema` is a round trip to LanceDB's event loop)."""
        dataset = self.accel.latest.current()
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

    # ---------------------------------------------------------------- writes
    def add(self, memories: Iterable[Memory], *, dedup: bool = True, reason: str | None = None,
            action: str = "add", progress: Progress | None = None, batch_rows: int = 2048,
            ) -> AddReport:
        """Insert new memories, embedding those without a vector.

        With `dedup`, a memory whose content_hash already exists in the tenant (or earlier in
        the same call) is reported as a duplicate and not inserted. An id that exists already
        is an error (use `upsert`). Nothing is written if any record is invalid.
        """
        with self.writing(action):
            return self._writes.add(memories, embedder=self.embedder, dimension=self.dimension,
                                    dedup=dedup, reason=reason, action=action,
                                    progress=progress, batch_rows=batch_rows)

    def upsert(self, memories: Iterable[Memory], *, reason: str | None = None,
               progress: Progress | None = None) -> UpsertReport:
        """Insert new ids, replace changed ones, skip identical ones; one audit row."""
        with self.writing("upsert"):
            return self._writes.upsert(memories, embedder=self.embedder,
                                       dimension=self.dimension, reason=reason,
                                       progress=progress)

    def record_access(self, ids: Sequence[str], *, at: datetime | None = None,
                      reason: str | None = None, session_id: str | None = None,
                      query: str | None = None, actor: str | None = None,
                      metadata: Mapping[str, Any] | None = None,
                      per_memory: Mapping[str, Mapping[str, Any]] | None = None) -> int:
        """Count one recall of each memory: access_count + 1, last_accessed_at = `at`, and a
        `recall` event (with `session_id`, `query`, `actor`, the store's by default, and
        `metadata` plus the memory's own `per_memory` entry beside its rank).

        Only `recall` calls this; searching and browsing never change access statistics.
        """
        with self.writing("record access"):
            return self._writes.record_access(ids, at=at, reason=reason,
                                              session_id=session_id, query=query, actor=actor,
                                              metadata=metadata, per_memory=per_memory)
