"""`import_file`: load an export into a store, all or nothing (docs/design/exports.md).

1. Open the file with a reader (`--format`, default `auto`: the reader that recognises it);
   newer schemas are refused, older ones migrated step by step. Foreign formats (adapters)
   merge by default and skip content the tenant already holds (`ContentDedup`).
2. Stage: every line parsed and validated into a temporary folder; a bad line stops the import
   naming its line, and the store is not touched (its table versions do not move).
3. Check: `empty` mode needs a tenant without memories; ids of other tenants are refused.
4. Commit: `empty` mode appends all memories in one write (embedding those without a vector),
   `merge` mode upserts them (inserted / updated / unchanged by id); edges, events and audit
   rows whose id is new are appended.

Steps 2 to 4 run inside `store.writing` (the store's write lock and journal): no other writer
slips in between the checks and the writes, and if the import fails, or its process is
killed, memories, edges, events and audit are put back together (at once, or by the next
writer).
Staging happens in a scratch folder kept with the store and removed afterwards.
"""

from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memory_core.embedding import Embedder
from memory_core.embedding.tolerant import Tolerant, embed_tolerant
from memory_core.exchange.import_report import ImportReport
from memory_core.exchange.readers import AUTO, NO_OPTIONS, ReadOptions, get_reader, open_source
from memory_core.exchange.staging import ContentDedup, Progress, StagedImport, stage
from memory_core.model.codec import memory_from_row
from memory_core.model.config import Settings
from memory_core.model.errors import ImportConflictError, ReadOnlyError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from memory_core.store.audit import record_snapshot
from memory_core.store.writes import unusable_id

log = logging.getLogger(__name__)

Mode = Literal["empty", "merge"]
MODES: tuple[str, ...] = ("empty", "merge")
MERGE_ROWS = 10_000
#: What a read-only store still allows of an import.
DRY_RUN_HINT = "--dry-run checks a file without writing"


@dataclass
class _Written:
    inserted: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    embedded: int = 0
    pending: int = 0
    embedding: Tolerant = field(default_factory=Tolerant)
    merge_error: str | None = None

    @property
    def embedding_error(self) -> str | None:
        return self.embedding.error or self.merge_error


def _existing(store: MemoryStore, ids: dict[str, int], kind: str) -> set[str]:
    """Ids of `ids` already in the table of `kind` for the store's tenant; an id of another
    tenant is refused."""
    tenant = store.tenant
    owners = store.bulk.owners(kind, list(ids))
    clash = sorted(i for i in ids if i in owners and owners[i] != tenant)
    if clash:
        raise ImportConflictError(unusable_id(kind, clash[0], f" (line {ids[clash[0]]})"))
    return {i for i in ids if i in owners}


def _check_memories(store: MemoryStore, staged: StagedImport, mode: str) -> None:
    if mode == "empty":
        present = store.count(Filter(status=STATUSES))
        if present:
            raise ImportConflictError(
                f"tenant {store.tenant!r} of {store.uri} already has {present} memories; "
                f"--mode empty loads only into a tenant without any: use --mode merge to "
                f"upsert by id, or import into another --tenant"
            )
    owners = store.keys.tenants_of(list(staged.memory_ids))
    foreign = sorted(i for i, t in owners.items() if t != store.tenant)
    if foreign:
        line = staged.memory_ids[foreign[0]]
        raise ImportConflictError(unusable_id("memory", foreign[0], f" (line {line})"))


def _with_vectors(batch: pa.RecordBatch, store: MemoryStore, written: _Written,
                  progress: Progress | None) -> pa.RecordBatch:
    """`batch` with its missing vectors embedded; those the embedder fails on stay pending."""
    vectors = batch.column("vector")
    missing = vectors.is_null().to_numpy(zero_copy_only=False)
    todo = np.flatnonzero(missing)
    if not len(todo):
        return batch
    texts = [batch.column("content")[int(i)].as_py() for i in todo]
    first = written.embedding.error is None
    got = embed_tolerant(store.embedder, texts, written.embedding, progress=progress)
    if first and written.embedding.error is not None:
        log.warning("embedding unavailable, importing the memories it fails on as pending: %s",
                    written.embedding.error)
    done_rows = [int(i) for i, vector in zip(todo, got, strict=True) if vector is not None]
    written.pending += len(todo) - len(done_rows)
    if not done_rows:
        return batch
    dim = vectors.type.list_size
    flat = np.zeros((batch.num_rows, dim), dtype=np.float32)
    has = ~np.asarray(missing)
    if has.any():
        flat[has] = vectors.filter(pa.array(has)).flatten().to_numpy().reshape(-1, dim)
    flat[done_rows] = [vector for vector in got if vector is not None]
    done = np.zeros(batch.num_rows, dtype=bool)
    done[done_rows] = True
    column = pa.FixedSizeListArray.from_arrays(pa.array(flat.ravel()), type=vectors.type)
    # Rows still without a vector keep their null (the staged vector), not zeros.
    column = pc.if_else(pa.array(done | has), column, vectors)
    status = pc.if_else(pa.array(done), pa.scalar("ok"), batch.column("embedding_status"))
    schema = batch.schema
    columns = list(batch.columns)
    columns[schema.get_field_index("vector")] = column
    columns[schema.get_field_index("embedding_status")] = status
    written.embedded += len(done_rows)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _commit_empty(store: MemoryStore, staged: StagedImport, embed: bool,
                  progress: Progress | None) -> _Written:
    written = _Written(inserted=list(staged.memory_ids))
    if not staged.memory_ids:
        return written

    def batches() -> Any:
        for batch in staged.batches("memory"):
            if embed:
                yield _with_vectors(batch, store, written, progress)
            else:
                written.pending += batch.column("vector").null_count
                yield batch

    schema = staged.schemas["memory"]
    store.bulk.append("memory", pa.RecordBatchReader.from_batches(schema, batches()))
    return written


def _commit_merge(store: MemoryStore, staged: StagedImport, reason: str,
                  progress: Progress | None) -> _Written:
    written = _Written()
    pending: list[Any] = []

    def flush() -> None:
        report = store.upsert(pending, reason=reason, progress=progress)
        written.inserted += report.inserted
        written.updated += report.updated
        written.unchanged += report.unchanged
        written.pending += report.pending
        written.embedded += report.embedded
        written.merge_error = written.merge_error or report.embedding_error
        pending.clear()

    for batch in staged.batches("memory"):
        pending.extend(memory_from_row(row) for row in batch.to_pylist())
        if len(pending) >= MERGE_ROWS:
            flush()
    if pending:
        flush()
    return written


def _append_new(store: MemoryStore, staged: StagedImport, kind: str, skip: set[str]) -> int:
    """Append staged rows of `kind` whose id is not in `skip`; returns how many."""
    added = [0]
    skip_ids = pa.array(sorted(skip), pa.string())

    def batches() -> Any:
        for batch in staged.batches(kind):
            if len(skip_ids):
                batch = batch.filter(pc.invert(pc.is_in(batch.column("id"),
                                                        value_set=skip_ids)))
            added[0] += batch.num_rows
            yield batch

    if len(staged.ids(kind)) > len(skip):
        store.bulk.append(kind, pa.RecordBatchReader.from_batches(staged.schemas[kind],
                                                                   batches()))
    return added[0]


def _dangling_edges(store: MemoryStore, staged: StagedImport) -> int:
    """Staged edges with an endpoint that is a memory neither of the file nor of the tenant."""
    known = store.keys.tenants_of(sorted(staged.outside_endpoints))
    missing = pa.array(sorted(e for e in staged.outside_endpoints
                              if known.get(e) != store.tenant), pa.string())
    if not len(missing):
        return 0
    count = 0
    for batch in staged.batches("edge"):
        out = pc.or_(pc.is_in(batch.column("source_id"), value_set=missing),
                     pc.is_in(batch.column("target_id"), value_set=missing))
        count += pc.sum(out).as_py() or 0
    return count


def _write_queries(path: Path, queries: list[dict[str, Any]], moved: dict[str, str]) -> int:
    """Write a benchmark's query set, its relevant ids pointed at the memories kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for query in queries:
            relevant: dict[str, int] = {}
            for memory_id, grade in (query.get("relevant") or {}).items():
                kept = moved.get(memory_id, memory_id)
                relevant[kept] = max(relevant.get(kept, 0), int(grade))
            out.write(json.dumps({**query, "relevant": relevant}, sort_keys=True,
                                 ensure_ascii=False) + "\n")
    return len(queries)


def _notes(staged: StagedImport, dangling: int) -> list[str]:
    notes = [staged.vector_note] if staged.vector_note else []
    if staged.vectors_dropped and not staged.vector_note:
        notes.append(f"{staged.vectors_dropped} vectors were left out (not the store's "
                     f"model or dimension) and embedded again")
    if dangling:
        notes.append(f"{dangling} edges point at memories this tenant does not hold "
                     f"(dangling edges, kept as exported)")
    return notes


def import_file(
    store: MemoryStore,
    path: Path | str,
    *,
    mode: Mode | None = None,
    format: str = AUTO,
    options: ReadOptions = NO_OPTIONS,
    dry_run: bool = False,
    queries_out: Path | str | None = None,
    embed: bool = True,
    record_audit: bool = True,
    progress: Progress | None = None,
    read_progress: Progress | None = None,
) -> ImportReport:
    """Import the file (or folder) at `path` into the store's tenant; see the module doc.

    `mode` defaults to the format's own (`empty` for memlens exports, `merge` for foreign
    formats); `options` go to the reader (`--limit`, `--project`, `--table`, `--param`);
    `dry_run` stages and checks everything and writes nothing; `queries_out` receives the
    query set of a benchmark format. `embed=False` keeps memories without a vector pending
    instead of embedding them; `record_audit=False` writes no audit row of its own (the
    recovery drill restores the audit log exactly).
    """
    if mode is not None and mode not in MODES:
        raise ValueError(f"unknown import mode {mode!r}; known: {', '.join(MODES)}")
    if not dry_run:
        store.check_writable("import", hint=DRY_RUN_HINT)
    source = open_source(path, format, replace(options, tenant=store.tenant))
    info = source.info
    reader = get_reader(info.format)
    mode = mode or reader.default_mode
    dedup = ContentDedup(store.keys.holder_of) \
        if reader.dedup_content else None
    guard = nullcontext() if dry_run else store.writing("import")
    with guard, store.guard.scratch("import") as folder:
        staged = stage(source, folder=folder, store=store,
                       tenant=store.tenant, progress=read_progress, dedup=dedup)
        _check_memories(store, staged, mode)
        old_edges = _existing(store, staged.edge_ids, "edge")
        old_audit = _existing(store, staged.audit_ids, "audit")
        old_events = _existing(store, staged.event_ids, "event")
        dangling = _dangling_edges(store, staged)
        common: dict[str, Any] = dict(
            path=str(path), format=info.format, schema_version=info.schema_version,
            migrations=info.migrations, mode=mode, records=dict(staged.counts),
            dangling_edges=dangling, vectors_kept=staged.vectors_kept,
            notes=tuple(source.notes + _notes(staged, dangling)), skipped=source.skips.as_dict(),
            duplicates=dict(staged.duplicates))
        if dry_run:
            present = store.keys.tenants_of(list(staged.memory_ids))
            return ImportReport(
                **common, dry_run=True,
                inserted=tuple(i for i in staged.memory_ids if i not in present),
                existing=tuple(i for i in staged.memory_ids if i in present),
                edges_added=staged.counts["edge"] - len(old_edges),
                edges_skipped=len(old_edges),
                audit_added=staged.counts["audit"] - len(old_audit),
                audit_skipped=len(old_audit), events_added=staged.counts.get("event", 0) -
                len(old_events), events_skipped=len(old_events), pending=staged.to_embed,
                queries=len(source.queries), table_versions=store.table_versions())
        name = Path(path).name
        reason = f"import {name} ({info.format}, mode {mode})"
        # Inside `store.writing`: a failure, or a kill -9 (rolled back by the next writer),
        # puts memories, edges, events and audit back together: the import is all or nothing.
        if mode == "empty":
            written = _commit_empty(store, staged, embed, progress)
        else:
            written = _commit_merge(store, staged, reason, progress)
        edges_added = _append_new(store, staged, "edge", old_edges)
        audit_added = _append_new(store, staged, "audit", old_audit)
        events_added = _append_new(store, staged, "event", old_events)
        if record_audit and (mode == "empty" or edges_added or audit_added or events_added):
            store.audit.append(
                "import", written.inserted if mode == "empty" else [],
                after=record_snapshot(staged.preview) if staged.counts["memory"] <= 100
                else {"count": staged.counts["memory"]},
                reason=f"{reason}: {staged.counts['memory']} memories, {edges_added} "
                       f"edges, {events_added} events, {audit_added} audit rows",
                table_version=store.version,
            )
    written_queries = 0
    if queries_out is not None and source.queries:
        written_queries = _write_queries(Path(queries_out), source.queries,
                                         staged.duplicates)
    return ImportReport(
        **common,
        inserted=tuple(written.inserted), updated=tuple(written.updated),
        unchanged=tuple(written.unchanged), edges_added=edges_added,
        edges_skipped=staged.counts["edge"] - edges_added,
        audit_added=audit_added, audit_skipped=staged.counts["audit"] - audit_added,
        events_added=events_added, events_skipped=staged.counts.get("event", 0) - events_added,
        embedded=written.embedded, pending=written.pending,
        embedding_error=written.embedding_error, queries=written_queries,
        queries_path=str(queries_out) if written_queries else None,
        table_versions=store.table_versions(),
    )


def import_into(
    settings: Settings,
    path: Path | str,
    *,
    embedder: Embedder | None = None,
    **kwargs: Any,
) -> ImportReport:
    """`import_file` into the store `settings` point at, which need not exist yet.

    A missing store is created only once the whole input has been read and checked (in a
    scratch store under the model cache, removed afterwards), so bad input never leaves an
    empty store behind; with `dry_run` it is not created at all. `kwargs` go to
    `import_file`.
    """
    from memory_core.embedding import load_embedder
    from memory_core.store import store_exists
    from memory_core.store.object_storage import storage_options
    from memory_core.store.scratch import scratch_folder

    if settings.read_only and not kwargs.get("dry_run"):  # before reading the whole input
        raise ReadOnlyError.refusing(settings.store_uri, "import", hint=DRY_RUN_HINT)
    embedder = embedder or load_embedder(settings)
    if not store_exists(settings.store_uri,
                        storage_options=storage_options(settings.store_uri, settings)):
        with scratch_folder(settings.model_cache / "scratch", "check") as folder:
            scratch = MemoryStore.open(str(folder / "store"), embedder=embedder,
                                       read_only=False, settings=settings)
            checked = import_file(scratch, path, **{**kwargs, "dry_run": True})
        if kwargs.get("dry_run"):
            return checked
    store = MemoryStore.open(embedder=embedder, settings=settings)
    return import_file(store, path, **kwargs)
