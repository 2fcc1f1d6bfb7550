"""The `herd` adapter on its golden LanceDB database (data/herd/tables.json): counts, fields,
vectors kept or embedded again, idempotence, dry runs, --limit/--project, sniffing, broken
inputs that change nothing, and the CLI report."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError, MemlensError
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

ID = "3f1c2a9e-0b7d-4e21-9a55-1d2b3c4d5e{:02d}".format
IMPORTED = [ID(n) for n in (1, 2, 3, 4, 5, 8, 9, 10)]
WITH_MODEL = ReadOptions(params={"model": MINILM})


@pytest.fixture
def herd_db(tmp_path: Path) -> Path:
    return build_golden("herd", tmp_path / "herd.lance")


@pytest.fixture
def store384(tmp_path: Path) -> MemoryStore:
    """A store of the default model's id and dimension (384-d), with a stand-in embedder."""
    return MemoryStore.open(str(tmp_path / "store384"), embedder=StandIn384(), tenant="default")


def test_golden_table_imports_with_expected_counts(store: MemoryStore, herd_db: Path) -> None:
    report = import_file(store, herd_db, format="herd")
    assert report.format == "herd" and report.mode == "merge"
    assert report.read == 10
    assert report.records == {"memory": 8, "edge": 0, "audit": 0}
    assert list(report.inserted) == IMPORTED
    assert report.duplicates == {ID(6): ID(3)}
    assert report.skipped == {"empty content": {"count": 1, "examples": [f"row 7 (id {ID(7)})"]}}
    assert report.edges_added == 0 and report.pending == 0
    assert store.count() == 8


def test_fields_metadata_and_type_aliases(store: MemoryStore, herd_db: Path) -> None:
    import_file(store, herd_db, format="herd")
    got = store.get_many(IMPORTED)
    first = got[ID(1)]
    assert first.content.startswith("Session 2026-02-15: defined the LanceDB memories schema")
    assert (first.memory_type, first.project, first.repo, first.agent, first.session_id) == (
        "session_summary", "herd", "herd-core", "steve", "steve-2026-02-15")
    assert first.created_at == datetime(2026, 2, 15, 18, 42, 7, 123456, tzinfo=UTC)
    assert first.source == "import:herd" and first.status == "active"
    assert first.embedding_status == "ok" and first.tags == ()
    # metadata JSON + the other columns; empty team/host/summary columns are left out
    assert first.metadata == {"hdr_number": "HDR-0033", "org": "herd-ag"}
    assert got[ID(2)].repo is None  # herd writes "" for a cross-repo memory
    assert got[ID(2)].metadata["principle"] == "AX is a first-class concern (HDR-0029)"
    assert got[ID(3)].metadata == {"org": "herd-ag"}  # null metadata
    assert got[ID(4)].memory_type == "preference"
    assert got[ID(4)].metadata == {"org": "herd-ag", "source_memory_type": "pref"}
    assert got[ID(5)].metadata == {"ticket_id": "DBC-112", "org": "herd-ag",
                                   "host": "ci-runner-1",
                                   "summary": "config architecture env vars settings file"}
    assert got[ID(8)].memory_type == "decision_context"
    assert got[ID(8)].metadata["source_memory_type"] == "HDR"
    ninth = got[ID(9)]
    assert ninth.memory_type == "session_summary"
    assert ninth.created_at == datetime(2026, 2, 17, 9, 0, tzinfo=UTC)  # naive means UTC
    # the metadata's own "org" wins; the column's differing value is kept beside it
    assert ninth.metadata == {"ticket_id": "HERD-88", "org": "herd-labs", "org_column": "herd-ag",
                              "team": "backend", "source_memory_type": "Session Summary"}


def test_unrecorded_model_means_embedding_again_with_a_note(store384: MemoryStore,
                                                           herd_db: Path) -> None:
    report = import_file(store384, herd_db, format="herd")
    assert report.vectors_kept == 0
    assert any("unrecorded model" in n and "--param model=ID" in n and "(384-d)" in n
               for n in report.notes)
    memory = store384.get(ID(1))
    assert np.allclose(vector_of(store384, ID(1)), StandIn384().embed_one(memory.content))


def test_model_param_keeps_vectors_except_summary_embeddings(store384: MemoryStore,
                                                            herd_db: Path) -> None:
    report = import_file(store384, herd_db, format="herd", options=WITH_MODEL)
    assert report.notes == ()
    assert report.vectors_kept == 7  # the 8 memories but the one whose vector is its summary's
    kept, summarised = store384.get(ID(1)), store384.get(ID(5))
    assert np.allclose(vector_of(store384, ID(1)), source_vector(kept.content, 384))
    assert np.allclose(vector_of(store384, ID(5)), StandIn384().embed_one(summarised.content))


def test_model_named_by_lancedb_embedding_functions_metadata(store384: MemoryStore,
                                                             tmp_path: Path) -> None:
    tables = description("herd")["tables"]
    tables["memories"]["schema_metadata"] = {"embedding_functions": json.dumps([{
        "name": "sentence-transformers", "model": {"name": "all-MiniLM-L6-v2"},
        "source_column": "content", "vector_column": "vector"}])}
    report = import_file(store384, build(tmp_path / "db", tables), format="herd")
    assert report.vectors_kept == 7 and report.notes == ()


def test_wrong_dimension_table_is_embedded_again(store384: MemoryStore, herd_db: Path) -> None:
    report = import_file(store384, herd_db, format="herd",
                         options=ReadOptions(table="memories_v0", params={"model": MINILM}))
    assert report.records["memory"] == 3 and report.vectors_kept == 0
    assert any("(8-d)" in note for note in report.notes)
    first = store384.get("0a5e6b1c-1111-4c2d-8e3f-000000000001")
    assert first.created_at == datetime(2026, 2, 10, 16, 0, tzinfo=UTC)  # a timestamp column
    second = store384.get("0a5e6b1c-1111-4c2d-8e3f-000000000002")
    assert second.repo is None and second.metadata == {}


def test_second_import_adds_nothing(store: MemoryStore, herd_db: Path) -> None:
    import_file(store, herd_db, format="herd")
    versions, count = store.table_versions(), store.count()
    again = import_file(store, herd_db, format="herd")
    assert again.inserted == () and again.updated == ()
    assert sorted(again.unchanged) == sorted(IMPORTED)
    assert again.duplicates == {ID(6): ID(3)} and again.edges_added == 0
    assert store.table_versions() == versions and store.count() == count


def test_dry_run_writes_nothing_and_reports(store: MemoryStore, herd_db: Path) -> None:
    versions = store.table_versions()
    report = import_file(store, herd_db, format="herd", dry_run=True)
    assert report.dry_run and list(report.inserted) == IMPORTED and report.pending == 8
    assert report.skipped["empty content"]["count"] == 1 and len(report.duplicates) == 1
    assert store.table_versions() == versions and store.count() == 0


def test_limit_and_project(store: MemoryStore, herd_db: Path) -> None:
    limited = import_file(store, herd_db, format="herd", options=ReadOptions(limit=3),
                          dry_run=True)
    assert limited.read == 3 and list(limited.inserted) == [ID(1), ID(2), ID(3)]
    one = import_file(store, herd_db, format="herd",
                      options=ReadOptions(project="dbt-conceptual"))
    assert list(one.inserted) == [ID(5)]
    assert one.skipped == {"project is not 'dbt-conceptual' (--project)": {
        "count": 9, "examples": [f"row {n} (id {ID(n)})" for n in (1, 2, 3)]}}


def test_auto_recognises_herd_and_nothing_else(herd_db: Path, store: MemoryStore,
                                               tmp_path: Path) -> None:
    assert detect_reader(herd_db).name == "herd"
    assert detect_reader(herd_db / "memories.lance").name == "herd"
    assert detect_reader(build_golden("make_skills", tmp_path / "ms")).name == "make_skills"
    with pytest.raises(MemlensError, match="cannot tell the format"):
        detect_reader(Path(store.uri))  # a memlens store also has a memories.lance
    report = import_file(store, herd_db)
    assert report.format == "herd" and report.records["memory"] == 8


def _golden(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        tables = description("herd")["tables"]
        change(tables["memories"])
        return build(folder, tables)
    return make


def _drop_column(name: str) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        del spec["columns"][name]
    return change


def _set(row: int, column: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        spec["rows"][row - 1][column] = value
    return change


def _content_int(spec: dict[str, Any]) -> None:
    spec["columns"]["content"] = "int64"
    for number, row in enumerate(spec["rows"]):
        row["content"], row["vector"] = number, None


def _binary(folder: Path) -> Path:
    path = folder.parent / "herd.bin"
    path.write_bytes(b"\x00\x01LANC\xff" * 50)
    return path


def _plain_folder(folder: Path) -> Path:
    folder.mkdir()
    (folder / "notes.txt").write_text("not a database\n")
    return folder


def _truncated(folder: Path) -> Path:
    build_golden("herd", folder)
    data = next((folder / "memories.lance" / "data").iterdir())
    data.write_bytes(data.read_bytes()[:200])
    return folder


BROKEN = {
    "binary file": (_binary, "is a file, not a LanceDB database folder"),
    "not lancedb": (_plain_folder, "holds no <table>.lance folders, so it is not a LanceDB"),
    "truncated data": (_truncated, "reading row 1 failed"),
    "no content": (_golden(_drop_column("content")),
                   "has no column 'content', so it is not a herd memories table"),
    "no id": (_golden(_drop_column("id")), "has no column 'id'"),
    "content int": (_golden(_content_int), "column 'content' is int64, but it should hold "
                                           "strings"),
    "bad metadata": (_golden(_set(4, "metadata", '{"hdr_number": "HDR-0')),
                     f"row 4 \\(id {ID(4)}\\): metadata is not valid JSON"),
    "metadata list": (_golden(_set(2, "metadata", '["HDR-0033"]')),
                      f"row 2 \\(id {ID(2)}\\): metadata must be a JSON object"),
    "bad time": (_golden(_set(9, "created_at", "yesterday")),
                 "created_at 'yesterday' is not an ISO-8601 time"),
    "no type": (_golden(_set(10, "memory_type", None)), f"id {ID(10)}\\): memory_type is empty"),
    "no id value": (_golden(_set(3, "id", None)), "row 3: id is empty"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_inputs_give_one_error_and_change_nothing(case: str, store: MemoryStore,
                                                         tmp_path: Path) -> None:
    import_file(store, build_golden("herd", tmp_path / "good"), format="herd")
    versions = store.table_versions()
    make, message = BROKEN[case]
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, make(tmp_path / "broken"), format="herd")
    assert store.table_versions() == versions


def test_options_and_params_are_checked(store: MemoryStore, herd_db: Path) -> None:
    with pytest.raises(ExportFormatError, match="has no --param colour; it takes model="):
        import_file(store, herd_db, format="herd", options=ReadOptions(params={"colour": "x"}))
    with pytest.raises(ExportFormatError, match=r"no LanceDB table 'nope' \(its tables: "
                                                r"memories, memories_v0"):
        import_file(store, herd_db, format="herd", options=ReadOptions(table="nope"))


@pytest.mark.model
def test_cli_prints_the_report(herd_db: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--store", str(tmp_path / "cli-store"), "import", str(herd_db),
                              "--param", f"model={MINILM}"], capsys)
    assert code == 0, err
    assert out.splitlines() == [
        "format: herd (--format auto chose it); mode merge",
        f"read 10 records from {herd_db} (herd schema_version 1): 8 memory, 0 edge, 0 audit",
        "memories: 8 imported, 0 updated, 0 unchanged; 7 vectors kept, 1 embedded, 0 pending",
        "edges: 0 created, 0 already there; audit rows: 0 added",
        "duplicates by content_hash: 1",
        "skipped: 1",
        f"  1 empty content (e.g. row 7 (id {ID(7)}))",
    ]
