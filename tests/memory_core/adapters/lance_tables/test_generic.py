"""The generic `lancedb` adapter on its golden tables (data/lancedb_table/tables.json): a
column mapping, literals, derived ids, vectors, idempotence, dry runs, --limit, never sniffed,
broken inputs that change nothing, and the CLI report."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memory_core.adapters.base import stable_id
from memory_core.adapters.lance_tables.generic import LanceDBTableAdapter
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError, UnknownFormatError
from memory_core.store import MemoryStore
from tests.conftest import run_cli
from tests.memory_core.adapters.lance_fixture import (
    MINILM,
    StandIn384,
    build,
    build_golden,
    description,
    source_vector,
    vector_of,
)

NOTES = {"id": "note_id", "content": "text", "memory_type": "kind", "created_at": "ts",
         "tags": "labels", "agent": "owner", "importance": "priority", "vector": "embedding"}
FACTS = {"content": "text", "memory_type": "fact", "created_at": "created"}


def notes(**params: str) -> ReadOptions:
    return ReadOptions(table="notes", params={**NOTES, **params})


@pytest.fixture
def other_db(tmp_path: Path) -> Path:
    return build_golden("lancedb_table", tmp_path / "agent-db")


def test_mapped_table_imports_with_expected_counts_and_fields(store: MemoryStore,
                                                              other_db: Path) -> None:
    report = import_file(store, other_db, format="lancedb", options=notes())
    assert report.read == 5 and report.records["memory"] == 3
    assert list(report.inserted) == ["n-001", "n-002", "n-005"]
    assert report.duplicates == {"n-003": "n-001"}
    assert report.skipped == {"empty content": {"count": 1, "examples": ["row 4 (id n-004)"]}}
    first = store.get("n-001")
    assert (first.content, first.memory_type, first.tags, first.agent, first.importance) == (
        "Prefer uv over pip for installs in CI.", "preference", ("tooling",), "ops-agent",
        "important")
    assert first.created_at == datetime.fromtimestamp(1717000000.0, UTC)
    assert first.source == "import:lancedb" and first.metadata == {"source_app": "notes-bot 2.1"}
    second = store.get("n-002")
    assert (second.memory_type, second.importance) == ("fact", "normal")  # medium -> normal
    assert second.metadata == {"source_app": "notes-bot 2.1", "source_memory_type": "Fact"}
    assert store.get("n-005").agent is None


def test_literal_type_and_derived_ids(store: MemoryStore, other_db: Path) -> None:
    options = ReadOptions(table="facts", params=FACTS)
    report = import_file(store, other_db, format="lancedb", options=options)
    ids = [stable_id("lancedb", "facts", "The staging database is Postgres 16."),
           stable_id("lancedb", "facts", "Deploys are frozen on Fridays after 15:00.")]
    assert list(report.inserted) == ids
    assert report.skipped == {"same content as an earlier row (no id column)": {
        "count": 1, "examples": ["row 3"]}}
    frozen = store.get(ids[1])
    assert frozen.memory_type == "fact"
    assert frozen.created_at == datetime(2024, 6, 2, 6, 30, tzinfo=UTC)
    versions = store.table_versions()
    again = import_file(store, other_db, format="lancedb", options=options)
    assert again.inserted == () and sorted(again.unchanged) == sorted(ids)
    assert store.table_versions() == versions


def test_vectors_kept_only_for_the_named_model(tmp_path: Path, other_db: Path) -> None:
    unnamed = MemoryStore.open(str(tmp_path / "a"), embedder=StandIn384(), tenant="default")
    report = import_file(unnamed, other_db, format="lancedb", options=notes())
    assert report.vectors_kept == 0 and any("unnamed model" in n for n in report.notes)
    named = MemoryStore.open(str(tmp_path / "b"), embedder=StandIn384(), tenant="default")
    report = import_file(named, other_db, format="lancedb", options=notes(model=MINILM))
    assert report.vectors_kept == 2 and report.notes == ()
    assert np.allclose(vector_of(named, "n-001"),
                       source_vector("Prefer uv over pip for installs in CI.", 384))


def test_second_import_dry_run_and_limit(store: MemoryStore, other_db: Path) -> None:
    dry = import_file(store, other_db, format="lancedb", options=notes(), dry_run=True)
    assert dry.dry_run and list(dry.inserted) == ["n-001", "n-002", "n-005"]
    assert store.count() == 0
    import_file(store, other_db, format="lancedb", options=notes())
    versions = store.table_versions()
    again = import_file(store, other_db, format="lancedb", options=notes())
    assert again.inserted == () and len(again.unchanged) == 3 and again.edges_added == 0
    assert store.table_versions() == versions
    limited = import_file(store, other_db, format="lancedb", dry_run=True,
                          options=ReadOptions(table="notes", limit=2, params=NOTES))
    assert limited.read == 2 and list(limited.existing) == ["n-001", "n-002"]


def test_project_column(store: MemoryStore, other_db: Path) -> None:
    options = ReadOptions(table="notes", project="build-agent",
                          params={**NOTES, "project": "owner"})
    report = import_file(store, other_db, format="lancedb", options=options, dry_run=True)
    assert list(report.inserted) == ["n-003"]
    assert report.skipped["project is not 'build-agent' (--project)"]["count"] == 4


def test_never_sniffed(other_db: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError):
        detect_reader(other_db)
    herd = build_golden("herd", tmp_path / "herd")
    assert not LanceDBTableAdapter().sniff(herd, "")
    assert detect_reader(herd).name == "herd"


BROKEN = {
    "no --table": (ReadOptions(params=NOTES), "needs --table NAME.*the tables at .*: facts, "
                                              "notes"),
    "missing column": (notes(tags="topics"), "has no column 'topics' for --param tags"),
    "unmapped type": (ReadOptions(table="facts", params={"content": "text"}),
                      "no column gives memory_type, created_at; map them with --param "
                      "memory_type=COLUMN, --param created_at=COLUMN"),
    "content number": (notes(content="ts"),
                       "column 'ts' is double, but it should hold strings"),
    "unknown param": (notes(colour="blue"), "has no --param colour"),
    "project unmapped": (ReadOptions(table="notes", project="x", params=NOTES),
                         "--project needs a project column"),
    "bad importance": (notes(importance="owner"),
                       r"row 1 \(id n-001\): unknown importance 'ops-agent'"),
    "bad time": (ReadOptions(table="notes", params={**NOTES, "created_at": "owner"}),
                 "created_at 'ops-agent' is not an ISO-8601 time"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_mappings_give_one_error_and_change_nothing(case: str, store: MemoryStore,
                                                           other_db: Path) -> None:
    import_file(store, other_db, format="lancedb", options=ReadOptions(table="facts",
                                                                       params=FACTS))
    versions = store.table_versions()
    options, message = BROKEN[case]
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, other_db, format="lancedb", options=options)
    assert store.table_versions() == versions


def test_broken_sources(store: MemoryStore, tmp_path: Path) -> None:
    binary = tmp_path / "agent.db"
    binary.write_bytes(b"\x00SQLite format 3\x00" * 10)
    with pytest.raises(ExportFormatError, match="is a file, not a LanceDB database folder"):
        import_file(store, binary, format="lancedb", options=ReadOptions(table="notes"))
    tables = description("lancedb_table")["tables"]
    del tables["notes"]["columns"]["text"]
    with pytest.raises(ExportFormatError, match="has no column 'text' for --param content"):
        import_file(store, build(tmp_path / "db", tables), format="lancedb", options=notes())
    assert store.count() == 0


def test_cli_prints_the_report(other_db: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--store", str(tmp_path / "cli-store"), "import", str(other_db / "notes.lance"),
            "--format", "lancedb", "--dry-run"]
    for field, column in NOTES.items():
        argv += ["--param", f"{field}={column}"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert out.splitlines()[:4] == [
        "format: lancedb; mode merge; dry run, nothing written",
        f"read 5 records from {other_db / 'notes.lance'} (lancedb schema_version 1): "
        f"3 memory, 0 edge, 0 audit",
        "memories: 3 would be new, 0 already in the tenant (updated or unchanged), 3 to embed",
        "edges: 0 would be created, 0 already there",
    ]
    assert "skipped: 1" in out and "  1 empty content (e.g. row 4 (id n-004))" in out
