"""The smallest inputs with which the fuzzed importers (tests/hardening) broke an import,
each now one `MemlensError` naming the problem (or a clean import), the store unchanged."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import NO_OPTIONS, ReadOptions
from memory_core.model.errors import ExportFormatError, InvalidRecordError, MemlensError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.memory_core.adapters.lance_fixture import build, description

DATA = Path(__file__).parent / "data"
KANI = Path(__file__).parents[1] / "exchange" / "data" / "superagents_kani.ndjson"
#: A JSON string that decodes to a lone surrogate, which no UTF-8 writer accepts.
LONE = '"x\\udfffy"'
DEEP = "[" * 100_000 + "]" * 100_000


def _rows(store: MemoryStore) -> dict[str, int]:
    return {kind: store.bulk.count(kind) for kind in ("memory", "edge", "audit")}


def _refused(store: MemoryStore, path: Path, fmt: str, error: type[MemlensError],
             match: str, options: ReadOptions = NO_OPTIONS) -> None:
    store.add([Memory.new("held before the import", "fact", id="pre")])
    before = _rows(store)
    with pytest.raises(error, match=match):
        import_file(store, path, format=fmt, options=options)
    assert _rows(store) == before


def _with(tmp_path: Path, seed: Path, old: str, new: str) -> Path:
    text = seed.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / seed.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt, seed, old", [
    ("mcp_memory", DATA / "mcp_memory" / "export.json", '"dev-laptop"'),
    ("mem0", DATA / "mem0" / "results.json", '"Allergic to peanuts"'),
    ("superagents", KANI, '"kani-identity-001"'),
])
def test_a_lone_surrogate_escape_is_bad_json(store: MemoryStore, tmp_path: Path, fmt: str,
                                             seed: Path, old: str) -> None:
    # was UnicodeEncodeError from the content hash, the id or Arrow
    _refused(store, _with(tmp_path, seed, old, LONE), fmt, ExportFormatError,
             "lone UTF-16 surrogate")


def test_a_lone_surrogate_in_a_streamed_benchmark_file(store: MemoryStore,
                                                       tmp_path: Path) -> None:
    path = _with(tmp_path, DATA / "longmemeval" / "longmemeval_small.json",
                 '"sharegpt_Qx81kLm_0"', LONE)
    _refused(store, path, "longmemeval", ExportFormatError, "item 1: .*lone UTF-16 surrogate")


@pytest.mark.parametrize("fmt, seed, old", [
    ("mcp_memory", DATA / "mcp_memory" / "export.json", '"dev-laptop"'),
    ("longmemeval", DATA / "longmemeval" / "longmemeval_small.json", '"Business '
                                                                     'Administration"'),
])
def test_json_nested_too_deeply_is_bad_json(store: MemoryStore, tmp_path: Path, fmt: str,
                                            seed: Path, old: str) -> None:
    # was RecursionError from the json module
    _refused(store, _with(tmp_path, seed, old, DEEP), fmt, ExportFormatError,
             "nested too deeply")


def _export(store: MemoryStore, tmp_path: Path) -> tuple[Path, str, list[str]]:
    """A one-memory export: its path, manifest line and body lines."""
    source = MemoryStore.open(str(tmp_path / "source"), embedder=store.embedder, tenant="x")
    source.add([Memory.new("a memory with a bad time", "fact", id="m-1")])
    export = tmp_path / "export.ndjson"
    export_store(source, export)
    head, *body = export.read_text(encoding="utf-8").splitlines()
    return export, head, body


@pytest.mark.parametrize("field, value, message", [
    ("counts", "3 memories", "the manifest's counts is '3 memories'"),
    ("counts", {"memory": "1"}, "the manifest's counts is"),
    ("record_types", "memory", "the manifest's record_types is 'memory'"),
    ("tenant", ["x"], "the manifest's tenant is"),
])
def test_a_manifest_field_of_the_wrong_type(store: MemoryStore, tmp_path: Path, field: str,
                                            value: object, message: str) -> None:
    # counts as text was AttributeError: 'str' object has no attribute 'items'
    export, head, body = _export(store, tmp_path)
    manifest = {**json.loads(head), field: value}
    export.write_text("\n".join([json.dumps(manifest), *body]) + "\n", encoding="utf-8")
    _refused(store, export, "memlens", ExportFormatError, message)


def test_an_epoch_time_out_of_range_names_the_line(store: MemoryStore, tmp_path: Path) -> None:
    # was OSError (Value too large for defined data type) from datetime.fromtimestamp
    export, head, body = _export(store, tmp_path)
    record = json.loads(body[0])
    record["created_at"] = -(2**63) - 1
    line = json.dumps(record) + "\n"
    manifest = {**json.loads(head), "body_sha256": hashlib.sha256(line.encode()).hexdigest()}
    export.write_text(json.dumps(manifest) + "\n" + line, encoding="utf-8")
    _refused(store, export, "memlens", InvalidRecordError,
             "line 2: .*not a valid epoch time")


@pytest.mark.parametrize("fmt, fixture, table, options", [
    ("herd", "herd", "memories", NO_OPTIONS),
    ("make_skills", "make_skills", "records", ReadOptions(params={"tenant_id": "u_alice"})),
])
def test_a_table_without_a_vector_column_imports(store: MemoryStore, tmp_path: Path, fmt: str,
                                                 fixture: str, table: str,
                                                 options: ReadOptions) -> None:
    # was KeyError: 'Column vector does not exist in schema'
    tables = description(fixture)["tables"]
    del tables[table]["columns"]["vector"]
    report = import_file(store, build(tmp_path / "db", tables), format=fmt, options=options)
    assert report.inserted and report.pending == len(report.inserted) - report.embedded


def test_a_database_whose_schema_is_not_utf8(store: MemoryStore, tmp_path: Path) -> None:
    # was UnicodeDecodeError from the sqlite3 module reading the table's columns
    path = tmp_path / "sqlite_vec.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((DATA / "mcp_memory" / "sqlite_vec.sql").read_text(encoding="utf-8"))
        conn.execute('ALTER TABLE memories ADD COLUMN "zzzz_extra" TEXT')
    conn.close()
    # an unterminated quote: SQLite's error message then quotes bytes that are not UTF-8
    path.write_bytes(path.read_bytes().replace(b'"zzzz_extra"', b"'\x80\xff\x80\xff_extra "))
    _refused(store, path, "mcp_memory", ExportFormatError,
             "cannot read the SQLite database .*can't decode byte 0x80")


def test_a_database_with_content_that_is_not_utf8(store: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "sqlite_vec.db"
    with sqlite3.connect(path) as conn:
        conn.executescript((DATA / "mcp_memory" / "sqlite_vec.sql").read_text(encoding="utf-8"))
        conn.execute("UPDATE memories SET content = CAST(X'80FF' AS TEXT) WHERE rowid = 2")
    conn.close()
    _refused(store, path, "mcp_memory", ExportFormatError,
             "cannot read the SQLite database .*Could not decode to UTF-8 column 'content'")


def test_a_superagents_manifest_whose_record_types_is_not_a_list(store: MemoryStore,
                                                                 tmp_path: Path) -> None:
    # was TypeError: 'float' object is not iterable
    path = _with(tmp_path, KANI, '"record_types": ["Fact", "Decision", "Identity"]',
                 '"record_types": 1e+308')
    _refused(store, path, "superagents", ExportFormatError,
             "the manifest's record_types is 1e\\+308")


def test_an_encoded_surrogate_in_a_transcript_is_not_utf8(store: MemoryStore,
                                                          tmp_path: Path) -> None:
    # b"\xed\xa0\x80" (a surrogate written as UTF-8) passed json.loads, which reads bytes with
    # "surrogatepass", and broke Arrow: was UnicodeEncodeError
    projects = tmp_path / "projects"
    shutil.copytree(DATA / "claude_code" / "projects", projects)
    session = projects / "-home-ana-code-herd" / "9d2e7b41-0c55-4f3a-8e6d-7b1a2c3d4e02.jsonl"
    raw = session.read_bytes()
    assert b'"content":"run the tests"}' in raw
    session.write_bytes(raw.replace(b'"content":"run the tests"}',
                                    b'"content":"run the te\xed\xa0\x80sts"}'))
    _refused(store, projects, "claude_code", ExportFormatError, "is not UTF-8 text")
