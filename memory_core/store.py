"""`MemoryStore`: the memories, edges and audit of one tenant in a LanceDB store.

Every read is scoped to the store's tenant; archived and superseded memories come back only
when a `Filter` asks for them; every write appends an audit row. Writes never fail because the
embedder is missing: such memories are written with `embedding_status="pending"` (seed 003
ADR-009) and `memlens reembed` fills them in.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa

from memory_core.audit import AuditLog, record_snapshot
from memory_core.canonical import memory_doc
from memory_core.codec import (
    memory_from_row,
    memory_to_row,
    rows_to_table,
)
from memory_core.config import Settings
from memory_core.embedding import Embedder, load_embedder
from memory_core.errors import (
    EmbedderUnavailableError,
    InvalidRecordError,
    MemoryNotFoundError,
    ReadOnlyError,
    TenantNotFoundError,
)
from memory_core.filters import Filter
from memory_core.graph import EdgeIndex
from memory_core.key_index import KeyIndex
from memory_core.records import (
    Memory,
    validate_memory,
)
from memory_core.store_links import EdgeAndAuditOps
from memory_core.store_reports import AddReport, UpsertReport, VersionInfo
from memory_core.tables import StoreTables, open_tables

log = logging.getLogger(__name__)

Progress = Callable[[int], None]
_CHUNK = 1000  # values per IN (...) list


def _chunks(values: Sequence[str], size: int = _CHUNK) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


class MemoryStore(EdgeAndAuditOps):
    """The memories of one tenant. Build it with `MemoryStore.open`."""

    def __init__(
        self,
        tables: StoreTables,
        *,
        tenant: str,
        embedder: Embedder,
        read_only: bool = False,
        actor: str = "memlens",
    ) -> None:
        self.tables = tables
        self.tenant = tenant
        self.embedder = embedder
        self.read_only = read_only
        self.actor = actor
        self.audit = AuditLog(tables.audit)
        self.keys = KeyIndex(tables.memories)
        self.edge_index = EdgeIndex(tables.edges, tenant)
        self.fts_ready = False  # set once the full-text index is known to exist

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
    ) -> MemoryStore:
        """Open (or create) the store at `uri` for `tenant`; `None` arguments come from settings.

        `require_tenant` refuses a tenant that has no memories (reads of a typo would
        otherwise look like an empty store).
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
            check_vectors=check_vectors,
        )
        store = cls(
            tables,
            tenant=tenant or settings.tenant,
            embedder=embedder,
            read_only=read_only,
            actor=settings.actor,
        )
        if require_tenant:
            store.require_tenant()
        return store

    # ----------------------------------------------------------------- reads
    @property
    def uri(self) -> str:
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
        """The current version of each of the three tables."""
        out = {}
        for name in ("memories", "edges", "audit"):
            table = getattr(self.tables, name)
            table.checkout_latest()
            out[name] = int(table.version)
        return out

    def history(self) -> builtins.list[VersionInfo]:
        """Every version of the memories table, oldest first."""
        out = []
        for v in self.tables.memories.list_versions():
            meta = v.get("metadata", {}) if isinstance(v, dict) else {}
            rows = meta.get("total_rows")
            out.append(
                VersionInfo(
                    version=int(v["version"]),
                    timestamp=v.get("timestamp"),
                    rows=int(rows) if rows is not None else None,
                )
            )
        return out

    def tenants(self) -> builtins.list[str]:
        """Every tenant that has memories in this store, sorted."""
        column = self.tables.memories.search().select(["tenant"]).limit(None).to_arrow()
        return sorted(set(column["tenant"].to_pylist()))

    def require_tenant(self) -> None:
        """Raise `TenantNotFoundError` unless this tenant has memories (or the store is empty
        and the tenant is the default one)."""
        known = self.tenants()
        if self.tenant in known or (not known and self.tenant == "default"):
            return
        listed = ", ".join(known) if known else "none yet"
        raise TenantNotFoundError(
            f"tenant {self.tenant!r} has no memories in {self.uri} (tenants: {listed}); pick "
            f"one of those with --tenant, or add a memory with --tenant {self.tenant} to create it"
        )

    def _predicate(self, filter: Filter | None) -> str:
        return (filter or Filter()).to_predicate(self.tenant)

    def count(self, filter: Filter | None = None) -> int:
        """How many memories match `filter` (active only unless it asks otherwise)."""
        return int(self.tables.memories.count_rows(self._predicate(filter)))

    def _select(
        self, where: str, *, with_vectors: bool, table: Any | None = None
    ) -> pa.Table:
        table = table if table is not None else self.tables.memories
        query = table.search().where(where).limit(None)
        if not with_vectors:
            columns = [n for n in table.schema.names if n != "vector"]
            query = query.select(columns)
        return query.to_arrow()

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
        if order_by not in self.tables.memories.schema.names or order_by == "vector":
            raise InvalidRecordError(f"cannot order memories by {order_by!r}")
        table = self._select(self._predicate(filter), with_vectors=with_vectors)
        order = "descending" if descending else "ascending"
        table = table.sort_by([(order_by, order), ("id", "ascending")])
        return [memory_from_row(r) for r in table.slice(offset, limit).to_pylist()]

    def ids(self, filter: Filter | None = None) -> set[str]:
        """Ids of the memories matching `filter` (no rows decoded)."""
        rows = (self.tables.memories.search().where(self._predicate(filter))
                .select(["id"]).limit(None).to_arrow())
        return set(rows["id"].to_pylist())

    def iter_memories(
        self, filter: Filter | None = None, *, with_vectors: bool = False, batch_rows: int = 4096
    ) -> Iterator[Memory]:
        """Matching memories streamed in batches (order not defined)."""
        query = self.tables.memories.search().where(self._predicate(filter)).limit(None)
        if not with_vectors:
            query = query.select([n for n in self.tables.memories.schema.names if n != "vector"])
        for batch in query.to_batches(batch_rows):
            for row in batch.to_pylist():
                yield memory_from_row(row)

    def get_many(self, ids: Sequence[str], *, with_vectors: bool = False) -> dict[str, Memory]:
        """The memories of this tenant with these ids, whatever their status."""
        found: dict[str, Memory] = {}
        statuses = ("active", "archived", "superseded")
        for chunk in _chunks(list(dict.fromkeys(ids))):
            where = Filter(ids=chunk, status=statuses).to_predicate(self.tenant)
            for row in self._select(where, with_vectors=with_vectors).to_pylist():
                found[row["id"]] = memory_from_row(row)
        return found

    def get(self, memory_id: str, *, with_vectors: bool = False) -> Memory:
        """The memory with this id (any status); `MemoryNotFoundError` if there is none."""
        found = self.get_many([memory_id], with_vectors=with_vectors)
        if memory_id not in found:
            raise MemoryNotFoundError(
                f"no memory with id {memory_id!r} in tenant {self.tenant!r}; list ids with "
                f"`memlens ls`"
            )
        return found[memory_id]

    # ---------------------------------------------------------------- writes
    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"the store {self.uri} is open read-only (MEMLENS_READ_ONLY); unset it to write"
            )

    def _prepare(self, memories: Iterable[Memory]) -> builtins.list[Memory]:
        dim = self.tables.dimension
        return [validate_memory(replace(m, tenant=self.tenant), dimension=dim) for m in memories]

    def _embed_missing(
        self, memories: builtins.list[Memory], progress: Progress | None
    ) -> tuple[builtins.list[Memory], str | None]:
        todo = [i for i, m in enumerate(memories) if m.vector is None]
        if not todo:
            return memories, None
        try:
            vectors = self.embedder.embed([memories[i].content for i in todo], progress=progress)
        except EmbedderUnavailableError as exc:
            log.warning("embedding unavailable, writing %d memories as pending: %s", len(todo), exc)
            out = [replace(m, embedding_status="pending") if m.vector is None else m
                   for m in memories]
            return out, str(exc)
        out = list(memories)
        for i, vector in zip(todo, vectors, strict=True):
            out[i] = replace(out[i], vector=tuple(float(x) for x in vector), embedding_status="ok")
        return out, None

    def _refuse_foreign_ids(self, ids: Sequence[str]) -> dict[str, str]:
        """Tenants of those `ids` that exist; an id of another tenant is an error."""
        found = self.keys.tenants_of(ids)
        foreign = sorted(i for i, tenant in found.items() if tenant != self.tenant)
        if foreign:
            raise InvalidRecordError(
                f"memory id {foreign[0]!r} already belongs to another tenant; give the record "
                f"a new id"
            )
        return found

    def add(
        self,
        memories: Iterable[Memory],
        *,
        dedup: bool = True,
        reason: str | None = None,
        action: str = "add",
        progress: Progress | None = None,
        batch_rows: int = 2048,
    ) -> AddReport:
        """Insert new memories, embedding those without a vector.

        With `dedup`, a memory whose content_hash already exists in the tenant (or earlier in
        the same call) is reported as a duplicate and not inserted. An id that exists already
        is an error (use `upsert`). Nothing is written if any record is invalid.
        """
        self._writable()
        batch = self._prepare(memories)
        ids = [m.id for m in batch]
        if len(set(ids)) != len(ids):
            raise InvalidRecordError("the same memory id appears twice in one add")
        taken = sorted(self._refuse_foreign_ids(ids))
        if taken:
            raise InvalidRecordError(
                f"memory id {taken[0]!r} already exists; use upsert to replace it"
            )
        before = self.keys.version
        duplicates: builtins.list[tuple[str, str]] = []
        if dedup:
            seen: dict[str, str] = {}
            kept = []
            for m in batch:
                holder = seen.get(m.content_hash) or self.keys.holder_of(self.tenant,
                                                                         m.content_hash)
                if holder is not None:
                    duplicates.append((m.id, holder))
                else:
                    seen[m.content_hash] = m.id
                    kept.append(m)
            batch = kept
        batch, error = self._embed_missing(batch, progress)
        rows = [memory_to_row(m) for m in batch]
        writes = 0
        for start in range(0, len(rows), batch_rows):
            self.tables.memories.add(rows_to_table(rows[start : start + batch_rows],
                                                   self.tables.memories.schema))
            writes += 1
        version = int(self.tables.memories.version)  # this handle saw its own write
        self.keys.added(((m.id, m.tenant, m.content_hash) for m in batch), before=before,
                        after=version, writes=writes)
        if rows:
            self.audit.append(
                tenant=self.tenant, actor=self.actor, action=action,
                target_ids=[r["id"] for r in rows],
                after=record_snapshot([memory_doc(m) for m in batch]),
                reason=reason, table_version=version,
            )
        pending = sum(1 for m in batch if m.embedding_status != "ok")
        return AddReport(tuple(r["id"] for r in rows), tuple(duplicates), pending, error, version)

    def upsert(
        self,
        memories: Iterable[Memory],
        *,
        reason: str | None = None,
        progress: Progress | None = None,
    ) -> UpsertReport:
        """Insert new ids, replace changed ones, skip identical ones; one audit row."""
        self._writable()
        batch = self._prepare(memories)
        ids = [m.id for m in batch]
        if len(set(ids)) != len(ids):
            raise InvalidRecordError("the same memory id appears twice in one upsert")
        self._refuse_foreign_ids(ids)
        current = self.get_many(ids, with_vectors=True)
        changed, unchanged = [], []
        for m in batch:
            old = current.get(m.id)
            if old is not None and m.vector is None and m.content == old.content:
                m = replace(m, vector=old.vector, embedding_status=old.embedding_status)
            if old is not None and _same(old, m):
                unchanged.append(m.id)
            else:
                changed.append(m)
        needed = sum(1 for m in changed if m.vector is None)
        changed, error = self._embed_missing(changed, progress)
        rows = [memory_to_row(m) for m in changed]
        if rows:
            table = rows_to_table(rows, self.tables.memories.schema)
            (self.tables.memories.merge_insert("id").when_matched_update_all()
             .when_not_matched_insert_all().execute(table, on_bad_vectors="null"))
            self.keys.invalidate()
        version = self.version
        inserted = tuple(m.id for m in changed if m.id not in current)
        updated = tuple(m.id for m in changed if m.id in current)
        if rows:
            before = [memory_doc(current[i]) for i in updated]
            self.audit.append(
                tenant=self.tenant, actor=self.actor, action="upsert",
                target_ids=[r["id"] for r in rows], before=record_snapshot(before) or None,
                after=record_snapshot([memory_doc(m) for m in changed]), reason=reason,
                table_version=version,
            )
        pending = sum(1 for m in changed if m.embedding_status != "ok")
        return UpsertReport(inserted, updated, tuple(unchanged), pending, version,
                            embedded=0 if error else needed, embedding_error=error)


def _same(old: Memory, new: Memory) -> bool:
    """Equal apart from `updated_at` (vectors compared too)."""
    return replace(old, updated_at=new.updated_at) == new
