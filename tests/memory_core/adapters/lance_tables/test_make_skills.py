"""The `make_skills` adapter on its golden LanceDB database (data/make_skills/tables.json):
tenant selection, counts, fields, vectors, idempotence, dry runs, --limit, sniffing, broken
inputs that change nothing, and the CLI report."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.adapters.lance_fixture import (
    MINILM,
    StandIn384,
    build,
    build_golden,
    description,
    source_vector,
    vector_of,
)

ID = "9b2d4f60-5a1e-4c3b-8d7f-6e5a4b3c2d{:02d}".format
ALICE = [ID(n) for n in (1, 2, 3, 4, 5, 10)]
AS_ALICE = ReadOptions(params={"tenant_id": "u_alice"})
SKIPPED_AS_ALICE = {
    "record of source tenant 'u_bob', not 'u_alice' (--param tenant_id)":
        {"count": 1, "examples": [f"row 6 (id {ID(6)})"]},
    "empty content": {"count": 1, "examples": [f"row 8 (id {ID(8)})"]},
    "record of source tenant (no tenant_id), not 'u_alice' (--param tenant_id)":
        {"count": 1, "examples": [f"row 9 (id {ID(9)})"]},
}


@pytest.fixture
def ms_db(tmp_path: Path) -> Path:
    return build_golden("make_skills", tmp_path / "memory")


def test_one_source_tenant_imports_with_expected_counts(store: MemoryStore,
                                                        ms_db: Path) -> None:
    report = import_file(store, ms_db, format="make_skills", options=AS_ALICE)
    assert report.format == "make_skills" and report.mode == "merge"
    assert report.read == 10
    assert report.records == {"memory": 6, "edge": 0, "audit": 0}
    assert list(report.inserted) == ALICE
    assert report.duplicates == {ID(7): ID(3)}
    assert report.skipped == SKIPPED_AS_ALICE
    assert report.edges_added == 0 and store.count() == 6


def test_fields_tags_times_and_type_aliases(store: MemoryStore, ms_db: Path) -> None:
    import_file(store, ms_db, format="make_skills", options=AS_ALICE)
    got = store.get_many(ALICE)
    first = got[ID(1)]
    assert first.content == ("Use LanceDB with local fastembed embeddings instead of a hosted "
                             "vector API.")
    assert first.memory_type == "decision" and first.tags == ("memory", "infra")
    assert first.session_id == "thr_01HZX3"
    assert first.created_at == datetime(2024, 4, 24, 23, 6, 40, 250000, tzinfo=UTC)
    assert first.why == "Keeps recall offline and free per query."
    assert first.source == "import:make_skills" and first.status == "active"
    assert first.metadata == {"tenant_id": "u_alice", "visibility": "private"}
    fourth = got[ID(4)]  # type "skill", null tags, "" thread and why
    assert (fourth.memory_type, fourth.tags, fourth.session_id, fourth.why) == (
        "skill_idea", (), None, None)
    assert fourth.metadata["source_memory_type"] == "skill"
    assert got[ID(5)].memory_type == "topic"
    assert got[ID(5)].metadata == {"tenant_id": "u_alice", "visibility": "public",
                                   "source_memory_type": "Topic"}
    assert got[ID(10)].memory_type == "skill_idea"
    assert got[ID(10)].created_at == datetime.fromtimestamp(1714010800.0, UTC)


def test_several_source_tenants_need_a_choice(store: MemoryStore, ms_db: Path) -> None:
    versions = store.table_versions()
    with pytest.raises(ExportFormatError, match=r"holds the records of 3 tenants \(\(no "
                       r"tenant_id\): 1 row, 'u_alice': 8 rows, 'u_bob': 1 row\), none of "
                       r"them the store's tenant 'default'.*--param tenant_id=ID"):
        import_file(store, ms_db, format="make_skills")
    assert store.table_versions() == versions


def test_the_store_tenant_is_the_default_source_tenant(tmp_path: Path, ms_db: Path,
                                                       fake_embedder: FakeEmbedder) -> None:
    alice = MemoryStore.open(str(tmp_path / "s"), embedder=fake_embedder, tenant="u_alice")
    report = import_file(alice, ms_db, format="make_skills")
    assert list(report.inserted) == ALICE and report.skipped == SKIPPED_AS_ALICE
    assert alice.get(ID(1)).tenant == "u_alice"


def test_every_tenant_on_request_keeps_tenant_ids_in_metadata(store: MemoryStore,
                                                              ms_db: Path) -> None:
    report = import_file(store, ms_db, format="make_skills",
                         options=ReadOptions(params={"tenant_id": "*"}))
    assert report.records["memory"] == 8 and len(report.duplicates) == 1
    assert report.skipped == {"empty content": {"count": 1, "examples": [f"row 8 (id {ID(8)})"]}}
    assert store.get(ID(6)).metadata == {"tenant_id": "u_bob", "visibility": "private"}
    assert store.get(ID(9)).metadata == {}  # the legacy row had no tenant_id


def test_self_hosted_table_reads_every_row(store: MemoryStore, ms_db: Path) -> None:
    report = import_file(store, ms_db, format="make_skills",
                         options=ReadOptions(table="records_local"))
    assert report.records["memory"] == 2 and report.skipped == {}
    lesson = store.get("c4e8a2b0-7d3f-4a1e-9b6c-5d4e3f2a1b02")
    assert lesson.created_at == datetime.fromtimestamp(1713903600, UTC) and lesson.why is None
    with pytest.raises(ExportFormatError, match="has no tenant_id column"):
        import_file(store, ms_db, format="make_skills",
                    options=ReadOptions(table="records_local", params={"tenant_id": "u_alice"}))


def test_fastembed_vectors_are_embedded_again_unless_the_model_matches(
        tmp_path: Path, ms_db: Path) -> None:
    default = MemoryStore.open(str(tmp_path / "a"), embedder=StandIn384(), tenant="default")
    report = import_file(default, ms_db, format="make_skills", options=AS_ALICE)
    assert report.vectors_kept == 0
    assert any("'BAAI/bge-small-en-v1.5' (384-d)" in note for note in report.notes)
    same = MemoryStore.open(str(tmp_path / "b"), embedder=StandIn384(), tenant="default")
    report = import_file(same, ms_db, format="make_skills",
                         options=ReadOptions(params={"tenant_id": "u_alice", "model": MINILM}))
    assert report.vectors_kept == 6 and report.notes == ()
    assert np.allclose(vector_of(same, ID(2)), source_vector(same.get(ID(2)).content, 384))


def test_second_import_adds_nothing(store: MemoryStore, ms_db: Path) -> None:
    import_file(store, ms_db, format="make_skills", options=AS_ALICE)
    versions, count = store.table_versions(), store.count()
    again = import_file(store, ms_db, format="make_skills", options=AS_ALICE)
    assert again.inserted == () and again.updated == ()
    assert sorted(again.unchanged) == sorted(ALICE) and again.edges_added == 0
    assert store.table_versions() == versions and store.count() == count


def test_dry_run_and_limit(store: MemoryStore, ms_db: Path) -> None:
    versions = store.table_versions()
    report = import_file(store, ms_db, format="make_skills", options=AS_ALICE, dry_run=True)
    assert report.dry_run and list(report.inserted) == ALICE and report.pending == 6
    assert report.skipped == SKIPPED_AS_ALICE
    assert store.table_versions() == versions and store.count() == 0
    limited = import_file(store, ms_db, format="make_skills",
                          options=ReadOptions(limit=3, params={"tenant_id": "u_alice"}))
    assert limited.read == 3 and list(limited.inserted) == [ID(1), ID(2), ID(3)]


def test_auto_recognises_make_skills(store: MemoryStore, ms_db: Path, tmp_path: Path) -> None:
    assert detect_reader(ms_db).name == "make_skills"
    assert detect_reader(ms_db / "records.lance").name == "make_skills"
    assert detect_reader(build_golden("herd", tmp_path / "herd")).name == "herd"
    report = import_file(store, ms_db, options=AS_ALICE)
    assert report.format == "make_skills" and report.records["memory"] == 6


def _golden(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        tables = description("make_skills")["tables"]
        change(tables["records"])
        return build(folder, tables)
    return make


def _drop_column(name: str) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        del spec["columns"][name]
    return change


def _retype(column: str, kind: str, value: Callable[[int], Any]) -> Callable[[dict[str, Any]],
                                                                              None]:
    def change(spec: dict[str, Any]) -> None:
        spec["columns"][column] = kind
        for number, row in enumerate(spec["rows"]):
            row[column] = value(number)
    return change


def _set(row: int, column: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(spec: dict[str, Any]) -> None:
        spec["rows"][row - 1][column] = value
    return change


def _binary(folder: Path) -> Path:
    path = folder.parent / "records.bin"
    path.write_bytes(bytes(range(256)) * 4)
    return path


def _plain_folder(folder: Path) -> Path:
    folder.mkdir()
    (folder / "records.json").write_text('[{"id": "1", "type": "fact"')
    return folder


def _truncated(folder: Path) -> Path:
    build_golden("make_skills", folder)
    data = next((folder / "records.lance" / "data").iterdir())
    data.write_bytes(data.read_bytes()[:200])
    return folder


BROKEN = {
    "binary file": (_binary, "is a file, not a LanceDB database folder"),
    "not lancedb": (_plain_folder, "holds no <table>.lance folders, so it is not a LanceDB"),
    "truncated data": (_truncated, "reading row 1 failed"),
    "no content": (_golden(_drop_column("content")),
                   "has no column 'content', so it is not a Make_Skills records table"),
    "no type": (_golden(_drop_column("type")), "has no column 'type'"),
    "content int": (_golden(_retype("content", "int64", lambda n: n)),
                    "column 'content' is int64, but it should hold strings"),
    "ts text": (_golden(_retype("ts", "string", lambda n: "2024-04-25")),
                "column 'ts' is string, but it should hold epoch seconds"),
    "tags text": (_golden(_retype("project_tags", "string", lambda n: "memory,infra")),
                  "column 'project_tags' is string, but it should hold lists of strings"),
    "type null": (_golden(_set(2, "type", None)), f"row 2 \\(id {ID(2)}\\): type is empty"),
    "ts null": (_golden(_set(3, "ts", None)), f"row 3 \\(id {ID(3)}\\): ts is empty"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_inputs_give_one_error_and_change_nothing(case: str, store: MemoryStore,
                                                         tmp_path: Path) -> None:
    import_file(store, build_golden("make_skills", tmp_path / "good"), format="make_skills",
                options=AS_ALICE)
    versions = store.table_versions()
    make, message = BROKEN[case]
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, make(tmp_path / "broken"), format="make_skills", options=AS_ALICE)
    assert store.table_versions() == versions


def test_unknown_params_and_options_are_refused(store: MemoryStore, ms_db: Path) -> None:
    with pytest.raises(ExportFormatError, match="it takes model=..., tenant_id=..."):
        import_file(store, ms_db, format="make_skills",
                    options=ReadOptions(params={"tenant": "u_alice"}))
    with pytest.raises(ExportFormatError, match="does not take --project"):
        import_file(store, ms_db, format="make_skills", options=ReadOptions(project="x"))


@pytest.mark.model
def test_cli_prints_the_report(ms_db: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--store", str(tmp_path / "cli-store"), "import", str(ms_db),
                              "--param", "tenant_id=u_alice"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:7] == [
        "format: make_skills (--format auto chose it); mode merge",
        f"read 10 records from {ms_db} (make_skills schema_version 1): 6 memory, 0 edge, "
        f"0 audit",
        "memories: 6 imported, 0 updated, 0 unchanged; 0 vectors kept, 6 embedded, 0 pending",
        "edges: 0 created, 0 already there; audit rows: 0 added",
        "duplicates by content_hash: 1",
        "skipped: 3",
        f"  1 record of source tenant 'u_bob', not 'u_alice' (--param tenant_id) (e.g. row 6 "
        f"(id {ID(6)}))",
    ]
    assert "note: the file's vectors come from 'BAAI/bge-small-en-v1.5' (384-d)" in err
