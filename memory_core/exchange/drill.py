"""The recovery drill: export -> drop the store -> import -> same counts and hash.

The drill is the recovery check of docs/design/exports.md.

Run on the configured store, so it is built to lose nothing:

1. export the tenant with vectors and audit rows to a file that is kept until the drill passes
   (and kept, with its path in the report, whenever anything fails);
2. verify the file: manifest, checksum and counts, every line parsed;
3. rehearse: import it into a scratch store in a temporary folder, re-export, compare. A
   failed rehearsal stops the drill before the store is touched;
4. drop: delete the tenant's rows from the four tables (LanceDB keeps the old versions, so
   this is undoable) or, with `drop_tables`, drop and recreate the tables (the real "database
   lost" drill; version history is lost too, so it is refused when other tenants share them);
5. import the file (`empty` mode, vectors and embedding states kept, no audit row of its own);
6. verify: the re-export has the same counts per kind and the same body sha256 as step 1.

When a step after 4 fails, the tables are restored to their versions before the drill (row
mode) and the export file is kept. A passing drill appends one `drill` audit row.
"""

from __future__ import annotations

import logging
import re
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.exchange.ndjson import ExportFile
from memory_core.exchange.readers import get_reader
from memory_core.model.config import Settings
from memory_core.model.errors import ImportConflictError
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DrillCheck:
    """One step of the drill and whether it passed."""

    step: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class DrillReport:
    """The outcome of a recovery drill."""

    passed: bool
    store: str
    tenant: str
    mode: str
    counts: dict[str, int]
    body_sha256: str
    checks: tuple[DrillCheck, ...]
    #: The export file, when it was kept (always after a failure).
    export_path: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _compare(step: str, first: ExportFile, again: ExportFile) -> DrillCheck:
    a, b = first.manifest, again.manifest
    if a.counts != b.counts:
        return DrillCheck(step, False, f"counts differ: {a.counts} before, {b.counts} after")
    if a.body_sha256 != b.body_sha256:
        kinds = [k for k in first.kind_sha256 if first.kind_sha256[k] != again.kind_sha256[k]]
        return DrillCheck(step, False, f"body sha256 differs ({', '.join(kinds)} lines)")
    return DrillCheck(step, True, f"same counts {b.counts} and body sha256 {b.body_sha256}")


def _verify_file(path: Path, export: ExportFile) -> DrillCheck:
    source = get_reader("memlens").open(path)
    seen = {k: 0 for k in export.manifest.counts}
    for record in source.records():
        seen[record.kind] += 1
    ok = seen == export.manifest.counts
    return DrillCheck("verify export file", ok, f"checksum ok, {seen} records parsed")


def _rehearse(store: MemoryStore, path: Path, folder: Path, first: ExportFile) -> DrillCheck:
    scratch = _reopen(store, str(folder / "scratch"))
    import_file(scratch, path, embed=False, record_audit=False)
    again = export_store(scratch, folder / "rehearsal.ndjson", with_vectors=True,
                         with_audit=True)
    return _compare("rehearse in a scratch store", first, again)


def _reopen(store: MemoryStore, uri: str) -> MemoryStore:
    """A writable store at `uri` (created if missing) for the same tenant, model and actor."""
    return MemoryStore.open(uri, tenant=store.tenant, embedder=store.embedder, read_only=False,
                            settings=replace(Settings.from_env(), actor=store.actor))


def _drop(store: MemoryStore, drop_tables: bool) -> MemoryStore:
    """The store with this tenant's records gone (rows deleted, or tables recreated)."""
    if not drop_tables:
        store.bulk.delete_tenant()
        return store
    for name, others in store.bulk.other_tenants_rows().items():
        if others:
            raise ImportConflictError(
                f"table {name!r} of {store.uri} also holds other tenants' rows; a drill with "
                f"--drop-tables would drop them too. Run it without --drop-tables"
            )
    store.bulk.drop_tables()
    return _reopen(store, store.uri)


def _restore(store: MemoryStore, versions: dict[str, int]) -> list[str]:
    """Put the tables back to `versions`; the tables that could not be (and why)."""
    with store.writing("drill rollback"):
        outcome = store.bulk.restore(versions)
    return [f"{name}: {why}" for name, why in outcome.kept.items()]


def run_drill(
    store: MemoryStore,
    *,
    export_dir: Path,
    drop_tables: bool = False,
    keep: bool = False,
    progress: Callable[[str], None] | None = None,
) -> DrillReport:
    """Run the drill on `store`'s tenant; see the module doc. Never raises for a failed
    comparison (the report says so); raises `MemlensError` only before anything is dropped."""
    store.check_writable("drill", hint="a drill deletes and re-imports the tenant")
    say = progress or (lambda step: None)
    stamp = utcnow().strftime("%Y%m%dT%H%M%S%fZ")
    safe = re.sub(r"[^\w.-]", "_", store.tenant)
    path = Path(export_dir) / f"drill-{safe}-{stamp}.ndjson"
    checks: list[DrillCheck] = []
    say("exporting")
    first = export_store(store, path, with_vectors=True, with_audit=True)
    counts, digest = dict(first.manifest.counts), first.manifest.body_sha256
    checks.append(DrillCheck("export", True, f"{counts} to {path}"))

    def report(passed: bool) -> DrillReport:
        kept = str(path) if (keep or not passed) else None
        if kept is None:
            path.unlink(missing_ok=True)
        return DrillReport(passed, store.uri, store.tenant,
                           "drop tables" if drop_tables else "delete rows", counts, digest,
                           tuple(checks), kept)

    with tempfile.TemporaryDirectory(prefix="memlens-drill-") as tmp:
        try:
            say("verifying the export")
            checks.append(_verify_file(path, first))
            say("rehearsing in a scratch store")
            checks.append(_rehearse(store, path, Path(tmp), first))
        except Exception as exc:  # a drill reports every failure; nothing is dropped yet
            log.exception("recovery drill failed before the drop")
            checks.append(DrillCheck("verify before dropping", False,
                                     f"{type(exc).__name__}: {exc}"))
        if not all(c.passed for c in checks):
            return report(False)
        before = store.table_versions()
        live, step = store, "drop"
        try:
            say("dropping")
            live = _drop(store, drop_tables)
            checks.append(DrillCheck(step, True, "tables dropped and recreated (run `memlens "
                                     "index` to rebuild indexes)" if drop_tables
                                     else "tenant rows deleted"))
            say("importing")
            step = "import"
            import_file(live, path, embed=False, record_audit=False)
            checks.append(DrillCheck("import", True, f"{counts} imported"))
            say("re-exporting")
            step = "verify re-export"
            again = export_store(live, Path(tmp) / "again.ndjson", with_vectors=True,
                                 with_audit=True)
            checks.append(_compare("verify re-export", first, again))
        except Exception as exc:  # reported below, and the store is put back
            log.exception("recovery drill failed while %s", step)
            checks.append(DrillCheck(step, False, f"{type(exc).__name__}: {exc}"))
        except BaseException:  # interrupted: put the store back, keep the file, stop
            if not drop_tables:
                _restore(live, before)
            raise
        passed = all(c.passed for c in checks)
        if not passed and not drop_tables:
            kept = _restore(live, before)
            checks.append(DrillCheck("rollback", not kept,
                                     "; ".join(kept) or f"tables restored to versions {before}"))
        elif not passed and live is not store:  # the tables are gone; the file is the copy
            checks.append(DrillCheck("rollback", False,
                                     f"the tables were dropped; load the kept export with "
                                     f"`memlens import {path}`"))
        if passed:
            live.audit.append(
                "drill", [],
                after={"counts": counts, "body_sha256": digest},
                reason=f"recovery drill passed ({'drop tables' if drop_tables else 'rows'})",
                table_version=live.version)
    return report(passed)
