"""Memory writes of a `MemoryStore`: add, upsert and access records, with embedding.

The body of the store's `add`, `upsert` and `record_access`, which run it inside their write
step. It is given the tables, the tenant, the key index, the audit log, the event log and
the store's reads by id; each call brings the embedder and dimension of the moment (the
store's model changes when it is re-embedded). Every write appends one audit row; writes
never fail because the embedder is missing (ADR-009 in docs/design/seeds.md): such memories
are written pending.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memory_core.embedding.tolerant import Tolerant, embed_tolerant
from memory_core.model.canonical import memory_doc
from memory_core.model.codec import memory_to_row, rows_to_table
from memory_core.model.errors import InvalidRecordError
from memory_core.model.records import Event, Memory, validate_memory
from memory_core.model.schema import ROW_KEY
from memory_core.model.untrusted import shown
from memory_core.model.values import utcnow
from memory_core.store.audit import AuditLog, record_snapshot
from memory_core.store.events import EventLog
from memory_core.store.keys import KeyIndex
from memory_core.store.memory_lookup import MemoryLookup
from memory_core.store.reports import AddReport, UpsertReport
from memory_core.store.tables import StoreTables

#: Each recall's access update rewrites its memories' rows into a small new data file, out
#: of the full-text index, and appends one to the audit and events tables. Past this many
#: data files in a table the recall that writes folds them:
#: LanceDB's `optimize` compacts them and brings every index up to date (every version is
#: kept, as undo needs). Without it a store an agent recalls from all day slows with each
#: recall and its BM25 scores drift.
FOLD_FRAGMENTS = 32

if TYPE_CHECKING:
    from memory_core.embedding import Embedder

log = logging.getLogger(__name__)

Progress = Callable[[int], None]


def unusable_id(kind: str, record_id: str, where: str = "") -> str:
    """The refusal of an id that another tenant holds, which must not reveal that tenant
    (nor, beyond that the id cannot be used here, that the id exists)."""
    return (f"{kind} id {shown(record_id)}{where} cannot be used in this tenant; give the "
            f"record a new id (ids are unique across the whole store)")


@dataclass(frozen=True)
class MemoryWrites:
    """Adds, upserts and access records of one store's memories, over what it is given."""

    tables: StoreTables
    tenant: str
    #: the store's actor, read at each write (an agent's session sets it per caller)
    actor: Callable[[], str]
    keys: KeyIndex
    audit: AuditLog
    events: EventLog
    lookup: MemoryLookup

    def _prepare(self, memories: Iterable[Memory], dimension: int) -> builtins.list[Memory]:
        tenant = self.tenant
        return [validate_memory(replace(m, tenant=tenant), dimension=dimension)
                for m in memories]

    def _embed_missing(
        self, memories: builtins.list[Memory], embedder: Embedder, progress: Progress | None
    ) -> tuple[builtins.list[Memory], str | None]:
        """`memories` with the missing vectors embedded; only those the embedder fails on
        stay pending (see `embed_tolerant`)."""
        todo = [i for i, m in enumerate(memories) if m.vector is None]
        if not todo:
            return memories, None
        state = Tolerant()
        vectors = embed_tolerant(embedder, [memories[i].content for i in todo],
                                 state, progress=progress)
        if state.error is not None:
            log.warning("embedding unavailable, writing %d memories as pending: %s",
                        state.failed, state.error)
        out = list(memories)
        for i, vector in zip(todo, vectors, strict=True):
            out[i] = (replace(out[i], embedding_status="pending") if vector is None else
                      replace(out[i], vector=tuple(float(x) for x in vector),
                              embedding_status="ok"))
        return out, state.error

    def _refuse_foreign_ids(self, ids: Sequence[str]) -> dict[str, str]:
        """Tenants of those `ids` that exist; an id held outside this tenant is an error
        that says neither where nor whose (ids are unique store-wide; tenants are private)."""
        found = self.keys.tenants_of(ids)
        foreign = sorted(i for i, tenant in found.items() if tenant != self.tenant)
        if foreign:
            raise InvalidRecordError(unusable_id("memory", foreign[0]))
        return found

    def add(
        self,
        memories: Iterable[Memory],
        *,
        embedder: Embedder,
        dimension: int,
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
        batch = self._prepare(memories, dimension)
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
                holder = seen.get(m.content_hash) or self.keys.holder_of(m.content_hash)
                if holder is not None:
                    duplicates.append((m.id, holder))
                else:
                    seen[m.content_hash] = m.id
                    kept.append(m)
            batch = kept
        batch, error = self._embed_missing(batch, embedder, progress)
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
            self.audit.append(action, [r["id"] for r in rows],
                               after=record_snapshot([memory_doc(m) for m in batch]),
                               reason=reason, table_version=version)
        pending = sum(1 for m in batch if m.embedding_status != "ok")
        return AddReport(tuple(r["id"] for r in rows), tuple(duplicates), pending, error, version)

    def upsert(
        self,
        memories: Iterable[Memory],
        *,
        embedder: Embedder,
        dimension: int,
        reason: str | None = None,
        progress: Progress | None = None,
    ) -> UpsertReport:
        """Insert new ids, replace changed ones, skip identical ones; one audit row."""
        batch = self._prepare(memories, dimension)
        ids = [m.id for m in batch]
        if len(set(ids)) != len(ids):
            raise InvalidRecordError("the same memory id appears twice in one upsert")
        self._refuse_foreign_ids(ids)
        current = self.lookup.get_many(ids, with_vectors=True)
        changed, unchanged = [], []
        for m in batch:
            old = current.get(m.id)
            if old is not None and m.vector is None and m.content == old.content:
                m = replace(m, vector=old.vector, embedding_status=old.embedding_status)
            if old is not None and _same(old, m):
                unchanged.append(m.id)
            else:
                changed.append(m)
        needed = {m.id for m in changed if m.vector is None}
        changed, error = self._embed_missing(changed, embedder, progress)
        embedded = sum(1 for m in changed if m.id in needed and m.vector is not None)
        rows = [memory_to_row(m) for m in changed]
        if rows:
            table = rows_to_table(rows, self.tables.memories.schema)
            (self.tables.memories.merge_insert(ROW_KEY).when_matched_update_all()
             .when_not_matched_insert_all().execute(table, on_bad_vectors="null"))
            self.keys.invalidate()
        self.tables.memories.checkout_latest()
        version = int(self.tables.memories.version)
        inserted = tuple(m.id for m in changed if m.id not in current)
        updated = tuple(m.id for m in changed if m.id in current)
        if rows:
            before = [memory_doc(current[i]) for i in updated]
            self.audit.append("upsert", [r["id"] for r in rows],
                               before=record_snapshot(before) or None,
                               after=record_snapshot([memory_doc(m) for m in changed]),
                               reason=reason, table_version=version)
        pending = sum(1 for m in changed if m.embedding_status != "ok")
        return UpsertReport(inserted, updated, tuple(unchanged), pending, version,
                            embedded=embedded, embedding_error=error)


    def record_access(self, ids: Sequence[str], *, at: datetime | None = None,
                      reason: str | None = None, session_id: str | None = None,
                      query: str | None = None, actor: str | None = None,
                      metadata: Mapping[str, Any] | None = None,
                      per_memory: Mapping[str, Mapping[str, Any]] | None = None) -> int:
        """access_count + 1 and last_accessed_at = `at` for each existing memory of `ids`,
        and one `recall` event each (by `actor`, the store's by default), whose metadata is
        its rank in `ids`, `metadata` and its own entry of `per_memory`."""
        tables, tenant = self.tables, self.tenant
        current = self.lookup.get_many(ids)
        if not current:
            return 0
        when = at or utcnow()
        ordered = sorted(current)
        update = pa.table({
            "tenant": pa.array([tenant] * len(ordered), pa.string()),
            "id": pa.array(ordered, pa.string()),
            "access_count": pa.array([current[i].access_count + 1 for i in ordered], pa.int32()),
            "last_accessed_at": pa.array([when] * len(ordered), pa.timestamp("us", tz="UTC")),
        })
        tables.memories.merge_insert(ROW_KEY).when_matched_update_all().execute(update)
        after: dict[str, Any] = {
            "access_count": {i: current[i].access_count + 1 for i in ordered}}
        if metadata and metadata.get("recall_id"):
            # ids only, never content: the row outlives a purge of what it names, and replay
            # reads what the recall sent from it when the purge deleted the events
            after.update(recall_id=metadata["recall_id"],
                         ranked=[i for i in dict.fromkeys(ids) if i in current])
        self.audit.append("recall", ordered, after=after, reason=reason,
                           table_version=int(tables.memories.version))
        self.events.record([
            Event.new("recall", memory_id, tenant=tenant, actor=actor or self.actor(),
                      at=when, session_id=session_id, query=query,
                      metadata={"rank": rank, **(metadata or {}),
                                **(per_memory or {}).get(memory_id, {})})
            for rank, memory_id in enumerate(dict.fromkeys(ids), start=1) if memory_id in current
        ])
        # a store made before the events table has none
        fold_together([t for t in (tables.memories, tables.audit, tables.events)
                       if t is not None])
        return len(ordered)


def _same(old: Memory, new: Memory) -> bool:
    """Equal apart from `updated_at` (vectors compared too)."""
    return replace(old, updated_at=new.updated_at) == new


def fold_together(tables: Sequence[Any]) -> bool:
    """Once any of `tables` has more than `FOLD_FRAGMENTS` data files, compact every one of
    them that has more than one; True when that happened. A recall writes one file to each,
    so after the first fold they fill up together and fold in the same recall: one slow
    recall in `FOLD_FRAGMENTS` instead of one per table. Call it inside a write step."""
    counts = [_fragments(t) for t in tables]
    if max(counts, default=0) <= FOLD_FRAGMENTS:
        return False
    for table, count in zip(tables, counts, strict=True):
        if count > 1:
            fold_fragments(table, limit=1)
    return True


def _fragments(table: Any) -> int:
    return int(table.stats()["fragment_stats"]["num_fragments"])


def fold_fragments(table: Any, *, limit: int | None = None) -> bool:
    """Compact `table` and update its indexes when it has more than `limit` data files
    (`FOLD_FRAGMENTS`), keeping every version; True when it did. Call it inside a write
    step."""
    from memory_core.store.bulk import KEEP_VERSIONS

    most = FOLD_FRAGMENTS if limit is None else limit
    if _fragments(table) <= most:
        return False
    table.optimize(cleanup_older_than=KEEP_VERSIONS)
    return True
