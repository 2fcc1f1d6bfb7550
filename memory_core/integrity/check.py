"""`check_store`: every table of a store scanned (`store.files.scan`), the memories' rows
checked (rows.py) and the audit held against the tables' versions (audit_versions.py).

It reads the files with Lance directly and opens no `MemoryStore`: a damaged store cannot be
opened, and checking must not write (no recovery, no index built, no table created).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memory_core.integrity.audit_versions import audit_entries, lost_problems, lost_writes
from memory_core.integrity.rows import DEFAULT_SAMPLE, row_problems
from memory_core.model.schema import AUDIT, MEMORIES
from memory_core.store.files.findings import LANCE_ERRORS, CheckReport, Problem, TableCheck, short
from memory_core.store.files.scan import TABLES, open_version, present_tables, scan_table
from memory_core.store.files.versions import table_uri

if TYPE_CHECKING:
    from memory_core.embedding import Embedder

def _model_of(ds: object) -> str:
    from memory_core.store.tables import vector_model_of

    try:
        return vector_model_of(ds.schema)[0]  # type: ignore[attr-defined]
    except (KeyError, ValueError):
        return "unknown"


def check_steps() -> int:
    """How many steps `check_store` reports to `progress` (a progress bar's total)."""
    return len(TABLES) + 2


def check_store(uri: str, *, embedder: Embedder | None = None,
                storage_options: dict[str, str] | None = None,
                sample: int = DEFAULT_SAMPLE, seed: int = 0,
                progress: Callable[[int], None] | None = None) -> CheckReport:
    """Check the store at `uri`: each table's latest version (manifest, data files,
    indexes), the newest version of each that reads whole, the memories' content against
    its hash and vectors against a re-embedded sample, the audit against the versions.
    `progress(n)` hears of each step done (`check_steps` in all)."""
    def advance(steps: int = 1) -> None:
        if progress is not None:
            progress(steps)

    names = present_tables(uri, storage_options)
    problems: list[Problem] = []
    if MEMORIES not in names:
        problems.append(Problem(MEMORIES, "", f"there is no memories table at {uri}: not a "
                                              f"memlens store"))
    tables = []
    for name in names:
        tables.append(scan_table(name, table_uri(uri, name), storage_options))
        advance()
    advance(len(TABLES) - len(names))
    by_name = {t.name: t for t in tables}
    notes: list[str] = []
    memories = by_name.get(MEMORIES)
    if memories is not None and memories.good_version is not None:
        ds = open_version(table_uri(uri, MEMORIES), memories.good_version, storage_options)
        try:
            found, notes = row_problems(ds, embedder=embedder, model_id=_model_of(ds),
                                        sample=sample, seed=seed)
        except LANCE_ERRORS as exc:
            found = [Problem(MEMORIES, "", f"the rows cannot be read: {short(exc)}")]
        by_name[MEMORIES] = _with(memories, found)
    advance()
    audit = by_name.get(AUDIT)
    if audit is not None and audit.good_version is not None:
        entries = audit_entries(open_version(table_uri(uri, AUDIT), audit.good_version,
                                             storage_options))
        newest = {t.name: t.latest for t in tables if t.latest is not None}
        problems.extend(lost_problems(lost_writes(entries, newest)))  # type: ignore[arg-type]
    advance()
    return CheckReport(uri, tuple(by_name[t.name] for t in tables), tuple(problems),
                       tuple(notes))


def _with(table: TableCheck, problems: list[Problem]) -> TableCheck:
    from dataclasses import replace

    return replace(table, problems=table.problems + tuple(problems))
