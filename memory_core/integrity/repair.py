"""`memlens check --repair`: put each damaged table back to its newest version that reads
whole, rebuild damaged indexes, re-embed changed vectors, redo lost status batches; audited.

`plan_repair` says first what a repair loses: the audit rows and events written after the
version a table goes back to, and the memories they touched. `apply_repair` then, under the
store's write lock:

1. moves unreadable manifests newer than that version aside (into `.memlens-damaged/` in
   the store folder: Lance cannot commit past them) and restores the version (Lance commits
   it as a new version, so nothing older is lost);
2. opens the store and, as one write, rebuilds each damaged index (the full-text one with
   the tokenisation recorded in the store, `store.fts.ensure()`; the others by
   `ensure_indexes`'s rule), re-embeds the memories whose vectors changed, archives or
   restores again the memories of a lost `archive`/`restore` batch, and appends one
   `repair` audit row.

Content that no longer matches its hash is not guessed at: the repair reports it.
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memory_core.integrity.audit_versions import (
    REPAIR,
    LostWrite,
    audit_entries,
    claims,
    lost_writes,
)
from memory_core.model.records import AuditEntry
from memory_core.model.schema import AUDIT, EVENTS, MEMORIES
from memory_core.store.files.findings import LANCE_ERRORS, CheckReport, Problem
from memory_core.store.files.scan import open_version
from memory_core.store.files.versions import local_path, table_uri

if TYPE_CHECKING:
    from memory_core.embedding import Embedder
    from memory_core.model.config import Settings
    from memory_core.store import MemoryStore

log = logging.getLogger(__name__)

#: Where a repair moves the manifests it cannot read (inside the store folder).
DAMAGED_FOLDER = ".memlens-damaged"
#: Lost batches a repair can apply again: their result is the status they set.
REDOABLE = {"archive": "archived", "restore": "active"}


@dataclass(frozen=True)
class RepairPlan:
    """What a repair of `report`'s store will do and lose."""

    report: CheckReport
    #: table -> (its latest version, the version it goes back to)
    restores: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: tables whose lost newest versions only need a new commit (the version hint)
    recommit: tuple[str, ...] = ()
    #: audit rows written after a restored table's version: the writes undone
    undone: tuple[AuditEntry, ...] = ()
    events_after: int = 0
    #: index name -> column, of the memories table
    indexes: dict[str, str] = field(default_factory=dict)
    reembed: tuple[str, ...] = ()
    redo: tuple[LostWrite, ...] = ()
    unfixable: tuple[Problem, ...] = ()

    @property
    def touched(self) -> tuple[str, ...]:
        """The records the undone writes touched."""
        return tuple(sorted({t for e in self.undone for t in e.target_ids}))

    @property
    def empty(self) -> bool:
        """Whether the repair has nothing to do."""
        return not (self.restores or self.recommit or self.indexes or self.reembed
                    or self.redo)

    def preview(self) -> list[str]:
        """What the repair does and loses, one line each."""
        lines = []
        for name, (latest, good) in sorted(self.restores.items()):
            lines.append(f"restore {name} from version {latest} to version {good}, the newest "
                         f"whose files all read")
        if self.restores:
            lines.append(f"  writes recorded after it, undone: {len(self.undone)} audit rows, "
                         f"touching {len(self.touched):,} records")
            for entry in self.undone[-10:]:
                lines.append(f"    {entry.at:%Y-%m-%d %H:%M:%S}  {entry.action:<10} "
                             f"{len(entry.target_ids):>6,} records  tenant {entry.tenant}")
            lines.append(f"  events recorded after it: {self.events_after:,}"
                         f"{' (lost)' if EVENTS in self.restores else ''}")
            if AUDIT in self.restores:
                latest, good = self.restores[AUDIT]
                lines.append(f"  the audit rows of versions {good + 1}..{latest} are lost with "
                             f"them")
        for name in self.recommit:
            lines.append(f"commit {name}'s newest version again (Lance's version hint names a "
                         f"lost one)")
        for name, column in sorted(self.indexes.items()):
            lines.append(f"rebuild the index {name} on memories.{column}")
        if self.reembed:
            lines.append(f"re-embed {len(self.reembed):,} memories whose vectors changed")
        for lost in self.redo:
            lines.append(f"{lost.entry.action} again the {len(lost.entry.target_ids):,} "
                         f"memories of the lost batch {lost.entry.batch_id or lost.entry.id}")
        for problem in self.unfixable:
            lines.append(f"not repaired: {problem.line()}")
        return lines


def _events_after(uri: str, version: int | None, since: datetime,
                  storage_options: dict[str, str] | None) -> int:
    if version is None:
        return 0
    try:
        at = open_version(uri, version, storage_options).to_table(columns=["at"])["at"]
    except LANCE_ERRORS:
        return 0
    return sum(1 for t in at.to_pylist() if t is not None and t > since)


def _stored_model(uri: str, version: int | None,
                  storage_options: dict[str, str] | None) -> str | None:
    from memory_core.store.tables import vector_model_of

    if version is None:
        return None
    try:
        return vector_model_of(open_version(uri, version, storage_options).schema)[0]
    except (KeyError, *LANCE_ERRORS):
        return None


def plan_repair(report: CheckReport, storage_options: dict[str, str] | None = None, *,
                model_id: str | None = None) -> RepairPlan:
    """What repairing `report`'s store does (nothing is written). Changed vectors are
    re-embedded only by `model_id`, the model memlens embeds with, when it is the store's."""
    uri = report.uri
    restores = {t.name: (t.latest, t.good_version) for t in report.tables
                if t.needs_restore and t.good_version is not None and t.latest is not None}
    audit = report.table(AUDIT)
    entries = (audit_entries(open_version(table_uri(uri, AUDIT), audit.good_version,
                                          storage_options))
               if audit is not None and audit.good_version is not None else [])
    # a row saw a version above the one its table goes back to: its write is undone
    undone = tuple(e for e in entries if any(claims(e).get(name, 0) > good
                                             for name, (_, good) in restores.items()))
    since = min((e.at for e in undone), default=None) or min(
        (t.good_at for t in report.tables if t.name in restores and t.good_at), default=None)
    events = report.table(EVENTS)
    events_after = (_events_after(table_uri(uri, EVENTS), events.good_version, since,
                                  storage_options)
                    if events is not None and since is not None else 0)
    newest = {t.name: t.latest for t in report.tables if t.latest is not None}
    lost = lost_writes(entries, newest)  # type: ignore[arg-type]
    redo = tuple({(w.entry.batch_id or w.entry.id): w for w in lost
                  if w.table == MEMORIES and w.entry.action in REDOABLE}.values())
    memories = report.table(MEMORIES)
    problems = report.all_problems
    stored = _stored_model(table_uri(uri, MEMORIES), memories.good_version if memories
                           else None, storage_options)
    embeds = model_id is not None and model_id == stored
    unfixable = tuple(p for p in problems if p.kind == "rows"
                      or (p.kind == "vector" and not embeds)
                      or (p.kind == "version" and p.table not in restores)
                      or (p.kind == "lost" and p.file == "_versions" and "audit" in p.what
                          and not redo))
    return RepairPlan(
        report, restores=restores,
        recommit=tuple(sorted({p.table for p in problems if p.kind == "lost"
                               and "Lance last committed" in p.what} - set(restores))),
        undone=undone, events_after=events_after,
        indexes=dict(memories.damaged_indexes) if memories is not None else {},
        reembed=tuple(sorted({i for p in problems if p.kind == "vector"
                              for i in p.memory_ids})) if embeds else (),
        redo=redo, unfixable=unfixable)


def _move_aside(store_uri: str, table: str, files: tuple[str, ...]) -> list[str]:
    """Move unreadable manifests out of the table (local stores only); returns the moves."""
    folder = local_path(table_uri(store_uri, table))
    if folder is None or not files:
        return []
    target = folder.parent / DAMAGED_FOLDER / time.strftime("%Y%m%dT%H%M%S") / f"{table}.lance"
    moved = []
    for relative in files:
        source = folder / relative
        if source.exists():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(source), str(target / relative))
            moved.append(str(Path(DAMAGED_FOLDER) / target.parent.name / f"{table}.lance"
                             / relative))
    return moved


def _restore_tables(plan: RepairPlan, storage_options: dict[str, str] | None) -> list[str]:
    uri = plan.report.uri
    moved: list[str] = []
    for name, (_, good) in sorted(plan.restores.items()):
        check = plan.report.table(name)
        moved += _move_aside(uri, name, check.broken_manifests if check else ())
        open_version(table_uri(uri, name), good, storage_options).restore()
    for name in plan.recommit:  # a new commit puts Lance's version hint right again
        open_version(table_uri(uri, name), None, storage_options).restore()
    return moved


def _reembed(store: MemoryStore, ids: tuple[str, ...]) -> int:
    from memory_core.model.filters import sql_string

    if not ids:
        return 0
    where = f"id IN ({', '.join(sql_string(i) for i in ids)})"
    rows = store.bulk.scan(["tenant", "id", "content"], where)
    vectors = store.embedder.embed_batch(rows["content"].to_pylist())
    field_type = store.tables.memories.schema.field("vector").type
    flat = pa.array(vectors.astype("float32").ravel(), pa.float32())
    column = pa.FixedSizeListArray.from_arrays(flat, field_type.list_size)
    store.bulk.update(pa.table({"tenant": rows["tenant"], "id": rows["id"], "vector": column}))
    return rows.num_rows


def _redo(store: MemoryStore, lost: LostWrite, settings: Settings, embedder: Embedder) -> int:
    from memory_core.curation import archive, restore
    from memory_core.model.errors import CurationError
    from memory_core.store import MemoryStore

    tenant = MemoryStore.open(store.uri, tenant=lost.entry.tenant, embedder=embedder,
                              settings=settings)
    act = archive if lost.entry.action == "archive" else restore
    try:
        done = act(tenant, list(lost.entry.target_ids),
                   reason=f"repair: the lost batch {lost.entry.batch_id or lost.entry.id} "
                          f"applied again")
    except CurationError as exc:
        log.warning("the lost batch was not applied again: %s", exc)
        return 0
    return len(done.memory_ids)


@dataclass(frozen=True)
class RepairResult:
    """What a repair did, one line each, and the versions it left."""

    lines: tuple[str, ...]
    versions: dict[str, int]


def apply_repair(plan: RepairPlan, *, settings: Settings, embedder: Embedder,
                 storage_options: dict[str, str] | None = None) -> RepairResult:
    """Carry out `plan` (see the module docstring); the `repair` audit row records it."""
    from memory_core.store import MemoryStore
    from memory_core.store.lock import WriteLock, control_folder

    uri = plan.report.uri
    lines: list[str] = []
    before = {t.name: t.latest for t in plan.report.tables if t.latest is not None}
    with WriteLock.of(control_folder(uri, settings.model_cache)).held(REPAIR):
        moved = _restore_tables(plan, storage_options)
        lines += [f"moved the unreadable manifest aside: {m}" for m in moved]
        lines += [f"restored {n} to version {g} (as a new version)"
                  for n, (_, g) in sorted(plan.restores.items())]
        # vectors are re-embedded only by the store's own model (`plan_repair`)
        store = MemoryStore.open(uri, embedder=embedder, read_only=False, settings=settings,
                                 check_vectors=False)
        with store.writing(REPAIR):
            lines += _rebuild_indexes(store, plan.indexes)
            if plan.reembed:
                lines.append(f"re-embedded {_reembed(store, plan.reembed):,} memories")
            for lost in plan.redo:
                count = _redo(store, lost, settings, embedder)
                lines.append(f"{lost.entry.action} applied again to {count:,} memories")
            versions = store.table_versions()
            store.audit.append(
                REPAIR, list(plan.touched) or list(plan.reembed),
                before={"versions": before}, after={"versions": versions},
                reason="memlens check --repair: " + "; ".join(
                    p.line() for p in plan.report.all_problems)[:2000])
            versions = store.table_versions()
    return RepairResult(tuple(lines), versions)


def _rebuild_indexes(store: MemoryStore, damaged: dict[str, str]) -> list[str]:
    from memory_core.store.indexes import ensure_indexes
    from memory_core.store.queries import FTS_COLUMN

    if not damaged:
        return []
    table: Any = store.tables.memories
    for name in damaged:
        table.drop_index(name)
    lines = []
    if FTS_COLUMN in damaged.values():
        store.fts.ready = False
        store.fts.ensure()  # builds it with the tokenisation recorded in the store
        lines.append(f"rebuilt the full-text index on memories.{FTS_COLUMN}")
    others = sorted(c for c in damaged.values() if c != FTS_COLUMN)
    if others:
        ensure_indexes(store)
        lines.append(f"rebuilt the indexes on memories.{', memories.'.join(others)}")
    store.forget_caches()
    return lines
