"""`MemoryStore`: the memories, edges and audit of one tenant in a LanceDB store.

Every read is scoped to the store's tenant; archived and superseded memories come back only
when a `Filter` asks for them; every write appends an audit row. Writes never fail because the
embedder is missing: such memories are written with `embedding_status="pending"` (ADR-009
in docs/design/seeds.md) and `memlens reembed` fills them in.

Its reads of the memories (lists, counts, look-ups by id, scans) are `MemoryReads`
(`store/memory_reads.py`), which it extends. The store is composed of parts, each over one
table: `EdgeTable` (edges and the cached
adjacency), `AuditLog`, `KeyIndex` (ids and content hashes), `BulkTables` (`store.bulk`:
Arrow-level reads and writes for the importer, the drill, re-embedding and benchmarks),
`ChangeTables` (`store.changes`: curation's change sets and the version history) and
`MemoryStreams` (`store.streams`: a few columns as Arrow batches, for aggregates),
`RowReads` (`store.rows`: reads by LanceDB row id) and the speed-up layer
(`store.accel`, `memory_core.store.accel`: per-version caches, off with `accel=False`).
Nothing outside `memory_core.store` touches the LanceDB tables or the speed-up layer.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from memory_core.embedding import Embedder, load_embedder
from memory_core.model.config import Settings
from memory_core.model.errors import (
    ReadOnlyError,
)
from memory_core.model.filters import Filter
from memory_core.model.records import AuditEntry, Edge, Event, Memory
from memory_core.store.accel import Accelerators
from memory_core.store.accel.row_reads import RowReads
from memory_core.store.accel.session_order import SessionOrder
from memory_core.store.accel.vector_search_in_memory import nearest_held
from memory_core.store.audit import AuditLog
from memory_core.store.bulk import BulkTables
from memory_core.store.changes import ChangeTables
from memory_core.store.edges import EdgeTable
from memory_core.store.events import EventLog
from memory_core.store.guard import WriteGuard
from memory_core.store.keys import KeyIndex
from memory_core.store.lock import WriteLock, control_folder
from memory_core.store.memory_reads import MemoryReads
from memory_core.store.object_storage import storage_options
from memory_core.store.queries import Found
from memory_core.store.reports import AddReport, UpsertReport, VersionInfo
from memory_core.store.scratch import scratch_folder
from memory_core.store.snapshot import Snapshot, snapshot
from memory_core.store.streams import MemoryStreams
from memory_core.store.tables import StoreTables, open_tables
from memory_core.store.writes import MemoryWrites

log = logging.getLogger(__name__)

Progress = Callable[[int], None]


class MemoryStore(MemoryReads):
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
        self._audit = AuditLog(tables.audit)
        self.event_log = EventLog(tables.events, tenant)
        self._keys = KeyIndex(tables.memories)
        #: the speed-up layer; its parts are the store's own below
        self.accel = Accelerators.build(lambda: self.tables.memories, tenant, enabled=accel)
        self.latest = self.accel.latest
        self._sessions = self.accel.sessions
        self.row_cache = self.accel.row_cache
        self._counts = self.accel.counts
        self._edges = EdgeTable(tables.edges, tenant)
        self._writes = MemoryWrites(self)
        self.bulk = BulkTables(self)
        self.rows = RowReads(self)
        self.changes = ChangeTables(self)
        self.streams = MemoryStreams(self)
        self.fts_ready = False  # set once the full-text index is known to exist
        self._cache = cache or Settings().model_cache
        self._guard = WriteGuard(self, WriteLock.of(control_folder(tables.uri, self._cache)))

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
        nothing is created; a writable open still brings an existing store up to date.

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
        store.recover_if_interrupted()
        if require_tenant:
            store.require_tenant()
        return store

    # ----------------------------------------------------------------- reads
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

    def history(self) -> builtins.list[VersionInfo]:
        """Every version of the memories table, oldest first."""
        return self.changes.history()

    def session_order(self) -> SessionOrder:
        """This tenant's memories in session order (cached per table version), for session
        context."""
        return self._sessions

    def held_columns(self) -> frozenset[str]:
        """The columns that reads by row id (`store.rows`) take from memory at the latest
        version: none until the row cache holds that version, or with the speed-up off."""
        if self.row_cache.version is None:
            return frozenset()
        return self.row_cache.holds_now(self.latest.version())

    def nearest_in_memory(self, vector: Sequence[float], flt: Filter, m: int
                          ) -> builtins.list[Found] | None:
        """The top-m under `flt` by cosine, from the rows held in memory
        (`accel.vector_search_in_memory`); None when they cannot answer for the latest
        version (then `queries.nearest` does)."""
        return nearest_held(self, vector, flt, m)

    # ---------------------------------------------------- Arrow-level views
    def schemas(self) -> dict[str, pa.Schema]:
        """The Arrow schema of each table, by record kind (memory, edge, audit, event)."""
        from memory_core.model.codec import events_schema

        events = self.tables.events
        return {"memory": self.tables.memories.schema, "edge": self.tables.edges.schema,
                "audit": self.tables.audit.schema,
                "event": events.schema if events is not None else events_schema()}

    def snapshot(self, *, memories_version: int | None = None) -> Snapshot:
        """The three tables pinned at their current versions (memories at
        `memories_version` when given), for readers that must not see later writes."""
        return snapshot(self.tables, memories_version=memories_version)

    # ------------------------------------------------------- lock and journal
    def writing(self, action: str) -> AbstractContextManager[None]:
        """Run a write as one step: under the store's write lock (other processes wait), with
        a journal of the table versions before it, so that a failure (or, at the next
        write, a `kill -9`) puts every table back. Reentrant: nested writes join the outer.
        """
        self.check_writable(action)
        return self._guard.writing(action)

    def remove_old_versions_at_commit(self) -> None:
        """Inside `writing`: once this write is committed, remove every older version of
        the tables from disk (a purge). The removal runs after the commit, under a journal
        that finishes it if the process dies, so a kill never leaves a journal pointing at
        removed versions."""
        self._guard.remove_old_versions_at_commit()

    def interrupted_write(self) -> str | None:
        """A write that died half way and is not rolled back yet (a read-only handle cannot
        roll it back), or the rollback of one when nothing was written since; else None."""
        return self._guard.interrupted_write()

    def recover_if_interrupted(self) -> None:
        """Roll back a dead writer's half-done write now, if there is one and the store is
        writable (a live writer's journal is left alone)."""
        if not self.read_only:
            self._guard.recover_if_interrupted()

    @property
    def recovered(self) -> str | None:
        """What opening this handle rolled back of a writer that died half way, if anything."""
        return self._guard.recovered

    def scratch(self, purpose: str) -> AbstractContextManager[Path]:
        """A private folder kept with the store for `purpose`'s temporary files (import
        staging), removed afterwards; those of dead processes are swept first. A read-only
        handle keeps it under the model cache: its store may be on a read-only mount."""
        return scratch_folder(self._cache / "scratch" if self.read_only
                              else self._guard.folder, purpose)

    def forget_caches(self) -> None:
        """Drop what this process cached about the tables (after a bulk write)."""
        self._keys.invalidate()
        self._sessions.invalidate()
        self.row_cache.invalidate()
        self._counts.invalidate()
        self.latest.invalidate()

    def use_model(self, embedder: Embedder) -> None:
        """Record that the store's vectors now come from `embedder` (after re-embedding)."""
        self.tables = replace(self.tables, model_id=embedder.model_id,
                              dimension=embedder.dimension)
        self.embedder = embedder

    def content_holder(self, digest: str) -> str | None:
        """The id of a memory of this tenant whose content hash is `digest`, if any."""
        return self._keys.holder_of(self.tenant, digest)

    def id_owners(self, ids: Sequence[str]) -> dict[str, str]:
        """The tenant of each of `ids` that exists as a memory in any tenant."""
        return self._keys.tenants_of(ids)

    def check_writable(self, action: str, *, hint: str = "") -> None:
        """Raise `ReadOnlyError` (`ReadOnlyError.refusing`) if this handle is read-only:
        every write path calls it, through `writing` or first thing, before any work."""
        if self.read_only:
            raise ReadOnlyError.refusing(self.uri, action, hint=hint)

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
            return self._writes.add(memories, dedup=dedup, reason=reason, action=action,
                                    progress=progress, batch_rows=batch_rows)

    def upsert(self, memories: Iterable[Memory], *, reason: str | None = None,
               progress: Progress | None = None) -> UpsertReport:
        """Insert new ids, replace changed ones, skip identical ones; one audit row."""
        with self.writing("upsert"):
            return self._writes.upsert(memories, reason=reason, progress=progress)

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

    def record_events(self, events: Iterable[Event]) -> int:
        """Append `events` (validated, put in this tenant) in one commit; returns how many."""
        from memory_core.model.records import validate_event

        batch = [validate_event(replace(e, tenant=self.tenant)) for e in events]
        if not batch:
            return 0
        with self.writing("record events"):
            self.event_log.append(batch)
        return len(batch)

    def delete_events(self, memory_ids: Sequence[str]) -> None:
        """Delete every event of `memory_ids` (a purge: events name the memory)."""
        with self.writing("delete events"):
            self.event_log.delete_for(memory_ids)

    def events(self, *, memory_ids: Sequence[str] | None = None, kinds: Sequence[str] = (),
               session_id: str | None = None, since: datetime | None = None,
               until: datetime | None = None, limit: int | None = None
               ) -> builtins.list[Event]:
        """This tenant's events matching every criterion given, newest first."""
        return self.event_log.query(memory_ids=memory_ids, kinds=kinds, session_id=session_id,
                                    since=since, until=until, limit=limit)

    # ----------------------------------------------------------------- edges
    def add_edges(self, edges: Iterable[Edge], *, check_endpoints: bool = True,
                  reason: str | None = None) -> int:
        """Insert edges of this tenant; endpoints must exist unless `check_endpoints` is off."""
        with self.writing("add edges"):
            return self._writes.add_edges(edges, self._edges, check_endpoints=check_endpoints,
                                          reason=reason)

    def edges(self, *, memory_id: str | None = None, include_inactive: bool = False
              ) -> builtins.list[Edge]:
        """Edges of this tenant (sorted by id), optionally only those touching `memory_id`."""
        return self._edges.list(memory_id=memory_id, include_inactive=include_inactive)

    def count_edges(self) -> int:
        """Number of active edges of this tenant."""
        return self._edges.count()

    def edge_endpoints(self) -> builtins.list[tuple[str, str]]:
        """(source_id, target_id) of every active edge of this tenant."""
        return self._edges.endpoints()

    def edge_endpoint_table(self, *, with_relation: bool = False) -> pa.Table:
        """`edge_endpoints` as an Arrow table (source_id, target_id, and `relation` when
        asked): no Python strings."""
        return self._edges.endpoint_table(with_relation=with_relation)

    def adjacency(self) -> dict[str, builtins.list[Edge]]:
        """node id -> active edges touching it (cached until the edges table changes)."""
        return self._edges.adjacency()

    # ----------------------------------------------------------------- audit
    def audit_entries(self, *, memory_id: str | None = None, limit: int = 50
                      ) -> builtins.list[AuditEntry]:
        """The newest audit entries of this tenant, optionally for one memory."""
        return self._audit.entries(self.tenant, target_id=memory_id, limit=limit)

    def audit_query(self, *, target_ids: Sequence[str] = (), batch_id: str | None = None,
                    actor: str | None = None, action: str | None = None,
                    since: datetime | None = None, until: datetime | None = None,
                    limit: int | None = 50) -> builtins.list[AuditEntry]:
        """Audit entries of this tenant matching every criterion given, newest first."""
        return self._audit.query(self.tenant, target_ids=target_ids, batch_id=batch_id,
                                 actor=actor, action=action, since=since, until=until,
                                 limit=limit)

    def append_audit(self, action: str, target_ids: Sequence[str], *, before: Any = None,
                     after: Any = None, reason: str | None = None,
                     table_version: int | None = None, tenant: str | None = None,
                     batch_id: str | None = None) -> AuditEntry:
        """Append one audit row for a write made through memlens (this tenant by default)."""
        with self.writing(action):
            return self._audit.append(
                tenant=tenant or self.tenant, actor=self.actor, action=action,
                target_ids=target_ids, before=before, after=after, reason=reason,
                table_version=table_version, batch_id=batch_id,
            )

    def append_audit_entries(self, entries: Sequence[AuditEntry]) -> int:
        """Append audit rows built by the caller (this tenant's) in one commit; returns the
        audit table's version."""
        with self.writing("audit"):
            return self._audit.append_many(
                [replace(e, tenant=self.tenant, actor=self.actor) for e in entries])

    def rewrite_audit(self, entries: Sequence[AuditEntry]) -> int:
        """Overwrite audit rows by id: only a purge does this, to scrub record copies."""
        with self.writing("scrub audit"):
            return self._audit.rewrite(entries)
