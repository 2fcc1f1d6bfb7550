"""The `mcp_memory` adapter: mcp-memory-service's SQLite database and JSON export, imported
with their counts, fields, edges and statuses; broken inputs change nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memory_core.adapters.base import stable_id
from memory_core.adapters.mcp_memory import McpMemoryAdapter
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader, first_line
from memory_core.model.errors import ExportFormatError, MemlensError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.model.values import content_hash
from memory_core.store import MemoryStore
from tests.conftest import run_cli

DATA = Path(__file__).parent / "data"
SQL = DATA / "mcp_memory" / "sqlite_vec.sql"
EXPORT = DATA / "mcp_memory" / "export.json"
ALL = Filter(status=STATUSES)
UV = "Use uv for Python installs; pip is only the fallback inside Docker images."


def their_hash(content: str) -> str:
    """The service's content_hash: sha256 of the raw content (memlens normalises first)."""
    import hashlib

    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def mid(content: str) -> str:
    return stable_id("mcp_memory", their_hash(content))


def build_db(path: Path, script: str | None = None) -> Path:
    """A SQLite database built from the committed script (or `script`)."""
    with sqlite3.connect(path) as conn:
        conn.executescript(SQL.read_text(encoding="utf-8") if script is None else script)
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return build_db(tmp_path / "sqlite_vec.db")


def test_database_imports_memories_edges_and_statuses(store: MemoryStore, db: Path) -> None:
    report = import_file(store, db, format="mcp_memory")
    assert report.format == "mcp_memory" and report.mode == "merge"
    assert report.records == {"memory": 6, "edge": 2, "audit": 0}
    # row 7 differs from row 1 only by whitespace: their hashes differ, memlens' agree
    duplicate = "Use uv for Python installs;  pip is only the fallback inside Docker images.\n"
    assert report.duplicates == {mid(duplicate): mid(UV)}
    assert report.skipped == {
        "empty content": {"count": 1, "examples": ["memories row 6"]},
        "reverse direction of a symmetric 'related' edge":
            {"count": 1, "examples": ["memory_graph row 3"]},
        "edge endpoint is not a memory of the database":
            {"count": 1, "examples": ["memory_graph row 4 (0adfa7e0ebd2)"]},
    }
    assert report.read == 6 + 2 + 1 + 3 and report.edges_added == 2
    assert store.count(ALL) == 6 and store.count() == 5

    uv = store.get(mid(UV))
    assert uv.tags == ("tooling", "python", "package manager")
    assert uv.memory_type == "decision" and uv.status == "active"
    assert uv.source == "import:mcp_memory" and uv.content_hash == content_hash(UV)
    assert uv.metadata == {"source": "claude-code", "project": "atlas", "access_count": 4,
                           "mcp_content_hash": their_hash(UV), "row_id": 1}
    assert uv.created_at.isoformat() == "2025-06-02T08:15:42.118034+00:00"
    assert uv.updated_at.isoformat() == "2025-06-03T08:15:42.500000+00:00"
    staging = store.get(mid("The staging database is restored from the nightly snapshot at "
                            "02:00 UTC."))
    assert staging.tags == ("ops", "database", "backups")
    deleted = store.get(mid("Deploys happen on Fridays after the release sync."))
    assert deleted.status == "archived"
    assert deleted.metadata["deleted_at"] == "2025-06-06T08:53:20Z"
    bare = store.get(mid("Ask before force-pushing to shared branches."))
    assert (bare.memory_type, bare.tags, bare.updated_at) == ("note", (), bare.created_at)

    edges = {(e.source_id, e.target_id): e for e in store.edges.list()}
    fix = mid("Pinning libpq to 16 in the Brewfile fixes the macOS CI failure.")
    ci = mid("CI fails on macOS runners because the Xcode 16 image lacks libpq.")
    assert set(edges) == {(fix, ci), (mid(UV), bare.id)}
    assert edges[fix, ci].relation == "improves"
    assert edges[fix, ci].strength == pytest.approx(0.91)
    assert edges[fix, ci].metadata == {"relationship_type": "fixes",
                                       "connection_types": ["semantic", "temporal"],
                                       "discovery_method": "consolidation"}
    assert edges[mid(UV), bare.id].relation == "relates_to"


def test_a_second_import_adds_nothing(store: MemoryStore, db: Path) -> None:
    import_file(store, db)
    versions, memories, edges = store.table_versions(), store.count(ALL), store.edges.count()
    again = import_file(store, db)
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 6
    assert again.edges_added == 0 and again.edges_skipped == 2
    assert store.table_versions() == versions
    assert (store.count(ALL), store.edges.count()) == (memories, edges)


def test_json_export_imports_and_meets_the_database_by_content_hash(
        store: MemoryStore, db: Path) -> None:
    report = import_file(store, EXPORT)
    assert report.format == "mcp_memory"
    assert report.records == {"memory": 3, "edge": 0, "audit": 0}
    notes = "Release notes are drafted from merged PR titles every Thursday."
    assert report.duplicates == {
        mid("Release notes are drafted from merged PR titles  every Thursday."): mid(notes)}
    assert report.skipped == {"empty content": {"count": 1, "examples": ["item 5"]}}
    released = store.get(mid(notes))
    assert released.tags == ("process", "release notes") and released.memory_type == "note"
    assert released.metadata == {"mcp_content_hash": their_hash(notes),
                                 "source_machine": "dev-laptop", "export_source": "dev-laptop"}
    rota = store.get(mid("The on-call rotation swaps every Monday at 09:00 CET."))
    assert rota.tags == ("ops", "on-call") and rota.memory_type == "fact"
    assert rota.updated_at == rota.created_at
    # the database holds the same first memory under the same id: it is merged, not doubled
    again = import_file(store, db)
    assert again.updated == (mid(UV),) and len(again.inserted) == 5
    assert store.count(ALL) == 3 + 5


def test_dry_run_reports_and_writes_nothing(store: MemoryStore, db: Path) -> None:
    versions = store.table_versions()
    report = import_file(store, db, dry_run=True)
    assert report.dry_run and len(report.inserted) == 6 and report.existing == ()
    assert report.edges_added == 2 and report.pending == 6
    assert len(report.skipped) == 3 and len(report.duplicates) == 1
    assert store.table_versions() == versions and store.count(ALL) == 0


def test_limit_reads_that_many_memories(store: MemoryStore, db: Path) -> None:
    report = import_file(store, db, options=ReadOptions(limit=3))
    assert report.records == {"memory": 3, "edge": 0, "audit": 0}
    assert report.skipped == {"edge endpoint not read (beyond --limit)": {
        "count": 4, "examples": ["memory_graph row 1 (6968aceb4e9b)",
                                 "memory_graph row 2 (538f2467abba)",
                                 "memory_graph row 3 (538f2467abba)"]}}
    assert import_file(store, EXPORT, options=ReadOptions(limit=2)).records["memory"] == 2


def test_deleted_skip_leaves_soft_deleted_rows_out(store: MemoryStore, db: Path) -> None:
    report = import_file(store, db, options=ReadOptions(params={"deleted": "skip"}))
    assert report.records["memory"] == 5 and store.count(ALL) == 5
    assert report.skipped["soft-deleted (deleted_at set; --param deleted=skip)"] == {
        "count": 1, "examples": ["memories row 5"]}
    with pytest.raises(ExportFormatError, match="deleted=gone is not one of archive, skip"):
        import_file(store, db, options=ReadOptions(params={"deleted": "gone"}))
    with pytest.raises(ExportFormatError, match="has no --param user_id_as"):
        import_file(store, db, options=ReadOptions(params={"user_id_as": "tenant"}))
    with pytest.raises(ExportFormatError, match="does not take --project"):
        import_file(store, db, options=ReadOptions(project="atlas"))


def _export(path: Path, memories: object) -> Path:
    path.write_text(json.dumps({"export_metadata": {"source_machine": "x"},
                                "memories": memories}), encoding="utf-8")
    return path


GOOD = {"content": "fine", "content_hash": "h1", "tags": [], "created_at": 1749290400.0}
SCHEMA = SQL.read_text(encoding="utf-8").split("INSERT INTO memories")[0]
ROW = ("INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at) "
       "VALUES ('h{n}', 'memory {n}', 'a,b', 'note', {metadata}, 1749290400.0);\n")


@pytest.mark.parametrize(("write", "message"), [
    (lambda p: p.write_text(EXPORT.read_text(encoding="utf-8")[:700], encoding="utf-8"),
     r"broken.in: invalid JSON at line \d+, column \d+ .*truncated"),
    (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "broken.in is a binary file"),
    (lambda p: _export(p, [GOOD, {**GOOD, "content": 42, "content_hash": "h2"}]),
     r"broken.in: item 2: 'content' must be str, got int 42"),
    (lambda p: _export(p, [GOOD, {k: v for k, v in GOOD.items() if k != "content_hash"}]),
     r"broken.in: item 2: the record has no 'content_hash'"),
    (lambda p: _export(p, [{**GOOD, "tags": 7}]), r"item 1: tags must be a list"),
    (lambda p: _export(p, [{**GOOD, "metadata": ["x"]}]),
     r"item 1: metadata must be a JSON object, got list"),
    (lambda p: _export(p, [{**GOOD, "created_at": "yesterday"}]),
     r"item 1: created_at 'yesterday' is not an ISO-8601 time"),
    (lambda p: _export(p, {"h1": GOOD}), r"'memories' array"),
    (lambda p: build_db(p, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"),
     r"broken.in is a SQLite database without a 'memories' table"),
    (lambda p: build_db(p, SCHEMA + ROW.format(n=1, metadata="'{}'")
                        + ROW.format(n=2, metadata="'{\"source\": \"cli\",'")),
     r"broken.in: memories row 2: metadata is not valid JSON"),
    (lambda p: build_db(p, SCHEMA + ROW.format(n=1, metadata="NULL") + ROW.format(
        n=2, metadata="NULL") + "INSERT INTO memory_graph VALUES ('h1', 'h2', 'high', '[]', "
        "NULL, 1749290400.0, 'related');"),
     r"memory_graph row 1: 'similarity' must be int or float, got str 'high'"),
])
def test_broken_inputs_name_the_problem_and_change_nothing(
        store: MemoryStore, tmp_path: Path, write, message: str) -> None:  # type: ignore[no-untyped-def]
    import_file(store, EXPORT)
    versions = store.table_versions()
    path = tmp_path / "broken.in"
    write(path)
    with pytest.raises(MemlensError, match=message):
        import_file(store, path, format="mcp_memory")
    assert store.table_versions() == versions


def test_auto_format_recognises_the_database_and_the_export_only(db: Path) -> None:
    assert detect_reader(db).name == "mcp_memory"
    assert detect_reader(EXPORT).name == "mcp_memory"
    adapter = McpMemoryAdapter()
    others = [*(DATA / "mem0").glob("*.json"), SQL,
              *(Path(__file__).parents[1] / "exchange" / "data").glob("*.ndjson")]
    for path in others:
        assert not adapter.sniff(path, first_line(path)), path
    assert not adapter.sniff(db.parent, "")


@pytest.mark.model
def test_cli_prints_the_report(db: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s")
    code, out, err = run_cli(["--store", store, "import", str(db)], capsys)
    assert code == 0, err
    assert "format: mcp_memory (--format auto chose it); mode merge" in out
    assert "read 12 records from" in out and "6 memory, 2 edge, 0 audit" in out
    assert "memories: 6 imported, 0 updated, 0 unchanged" in out
    assert "edges: 2 created, 0 already there" in out
    assert "duplicates by content_hash: 1" in out and "skipped: 3" in out
    assert "1 empty content (e.g. memories row 6)" in out
    code, out, _ = run_cli(["--store", store, "import", str(db), "--dry-run"], capsys)
    assert code == 0 and "0 would be new, 6 already in the tenant" in out
