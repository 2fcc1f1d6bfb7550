"""`import_file`: bad files change nothing; empty and merge modes; vectors; rollback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.embedding import UnavailableEmbedder
from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.model.errors import (
    ExportFormatError,
    ImportConflictError,
    InvalidRecordError,
    MemlensError,
    SchemaVersionError,
    UnknownFormatError,
)
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.model.values import canonical_json
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.exchange.conftest import WHEN, body, fresh_store


@pytest.fixture
def export(filled: MemoryStore, tmp_path: Path) -> Path:
    path = tmp_path / "export.ndjson"
    export_store(filled, path, exported_at=WHEN, with_audit=True)
    return path


def _rewrite(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Apply `change` to the body lines and fix the manifest's checksum and counts, so only
    the change itself is wrong."""
    import hashlib

    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    head, records = json.loads(lines[0]), change(lines[1:])
    data = "".join(line + "\n" for line in records).encode("utf-8")
    head["body_sha256"] = hashlib.sha256(data).hexdigest()
    head.pop("counts")
    path.write_bytes((canonical_json(head) + "\n").encode("utf-8") + data)


def _replace_line(number: int, new: str):  # type: ignore[no-untyped-def]
    return lambda lines: [new if i == number - 2 else line for i, line in enumerate(lines)]


def _without(field: str, number: int = 2):  # type: ignore[no-untyped-def]
    def change(lines: list[str]) -> list[str]:
        doc = json.loads(lines[number - 2])
        doc.pop(field)
        lines[number - 2] = canonical_json(doc)
        return lines
    return change


def _manifest_says(path: Path, export_format: str) -> None:
    """Set the manifest's `memlens_export` to the JSON text `export_format`."""
    text = path.read_text(encoding="utf-8")
    assert '"memlens_export":1,' in text.split("\n", 1)[0]
    path.write_text(text.replace('"memlens_export":1,', f'"memlens_export":{export_format},',
                                 1), encoding="utf-8")


BAD_FILES = [
    ("truncated", lambda p: p.write_bytes(p.read_bytes()[:-40]),
     ExportFormatError, r"line 8 is incomplete.*truncated"),
    ("cut at a line end", lambda p: p.write_bytes(b"\n".join(
        p.read_bytes().split(b"\n")[:-2]) + b"\n"), ExportFormatError, "truncated or was edited"),
    ("wrong checksum", lambda p: p.write_text(p.read_text(encoding="utf-8").replace(
        "Chroma server", "Chroma serv3r"), encoding="utf-8"), ExportFormatError,
     "does not match the manifest"),
    ("newer schema", lambda p: p.write_text(p.read_text(encoding="utf-8").replace(
        '"schema_version":2', '"schema_version":7', 1), encoding="utf-8"),
     SchemaVersionError, r"schema_version 7, newer than this memlens reads \(2\)"),
    ("newer export format", lambda p: _manifest_says(p, "2"), SchemaVersionError,
     r"export of format version 2, newer than this memlens reads \(1\); upgrade memlens"),
    ("export format as text", lambda p: _manifest_says(p, '"1"'), ExportFormatError,
     r"""'memlens_export' is '1'; it must be the export format version, a positive int"""),
    ("export format 0", lambda p: _manifest_says(p, "0"), ExportFormatError,
     r"'memlens_export' is 0; it must be"),
    ("negative export format", lambda p: _manifest_says(p, "-3"), ExportFormatError,
     r"'memlens_export' is -3; it must be"),
    ("export format as bool", lambda p: _manifest_says(p, "true"), ExportFormatError,
     r"'memlens_export' is True; it must be"),
    ("export format as null", lambda p: _manifest_says(p, "null"), ExportFormatError,
     r"'memlens_export' is None; it must be"),
    ("not JSON", lambda p: _rewrite(p, _replace_line(3, "{not json")), ExportFormatError,
     r"line 3 is not JSON"),
    ("no id", lambda p: _rewrite(p, _without("id", 3)), InvalidRecordError,
     r"line 3: the memory record has no 'id'"),
    ("no content", lambda p: _rewrite(p, _without("content", 2)), InvalidRecordError,
     r"line 2: the memory record has no 'content'"),
    ("empty content", lambda p: _rewrite(p, lambda lines: [lines[0].replace(
        '"content":"Chose LanceDB for embedded search 🔎"', '"content":"  "')] + lines[1:]),
     InvalidRecordError, r"line 2: memory m-a has empty content"),
    ("bad relation", lambda p: _rewrite(p, lambda lines: [
        line.replace('"relation":"caused"', '"relation":"likes"') for line in lines]),
     InvalidRecordError, r"line 5: unknown relation 'likes'"),
    ("tags as text", lambda p: _rewrite(p, lambda lines: [lines[0].replace(
        '"tags":["storage","search"]', '"tags":"storage"')] + lines[1:]),
     InvalidRecordError, r"line 2: tags must be a list"),
    ("duplicate id", lambda p: _rewrite(p, lambda lines: [lines[0], lines[0], *lines[1:]]),
     InvalidRecordError, r"line 3: memory id 'm-a' appears twice \(first on line 2\)"),
    ("unknown kind", lambda p: _rewrite(p, _replace_line(4, '{"kind":"note","id":"x"}')),
     ExportFormatError, r"line 4 has no known 'kind'"),
    ("bad vector", lambda p: _rewrite(p, lambda lines: [lines[0].replace(
        '"why":null}', '"vector":["a"],"why":null}')] + lines[1:]),
     InvalidRecordError, r"line 2: vector must be a list of numbers"),
    ("empty file", lambda p: p.write_bytes(b""), ExportFormatError, "is empty"),
    ("no manifest", lambda p: p.write_text('{"id": "x"}\n'), UnknownFormatError,
     "cannot tell the format"),
]


@pytest.mark.parametrize("name, damage, error, message", BAD_FILES,
                         ids=[case[0] for case in BAD_FILES])
def test_a_bad_file_names_line_and_reason_and_changes_nothing(
        export: Path, tmp_path: Path, name: str, damage, error: type[MemlensError],
        message: str) -> None:
    damage(export)
    for target in (fresh_store(tmp_path, "empty"), fresh_store(tmp_path, "full")):
        if target.uri.endswith("full"):
            target.add([Memory.new("already here", "fact", id="m-z")])
        before = target.table_versions()
        count = target.count(Filter(status=STATUSES))
        with pytest.raises(error, match=message):
            import_file(target, export,
                        mode="merge" if target.uri.endswith("full") else "empty")
        assert target.table_versions() == before
        assert target.count(Filter(status=STATUSES)) == count


def test_empty_mode_loads_all_statuses_edges_and_audit(export: Path, tmp_path: Path) -> None:
    target = fresh_store(tmp_path)
    report = import_file(target, export)
    assert sorted(report.inserted) == ["m-a", "m-b", "m-c"]
    assert report.records == {"memory": 3, "edge": 2, "audit": 2}
    assert (report.edges_added, report.audit_added, report.embedded) == (2, 2, 3)
    assert {m.id: m.status for m in target.list(Filter(status=STATUSES))} == {
        "m-a": "active", "m-b": "archived", "m-c": "superseded"}
    assert target.get("m-a").embedding_status == "ok"
    # the two exported rows (the fixture's add and add_edges), then the import's own
    assert sorted(e.action for e in target.audit.entries()) == ["add", "add_edges", "import"]


def test_empty_mode_refuses_a_tenant_with_memories(export: Path, filled: MemoryStore) -> None:
    before = filled.table_versions()
    with pytest.raises(ImportConflictError, match="already has 3 memories.*--mode merge"):
        import_file(filled, export)
    assert filled.table_versions() == before


def test_ids_of_another_tenant_are_refused(export: Path, filled: MemoryStore) -> None:
    other = MemoryStore.open(filled.uri, tenant="acme", embedder=filled.embedder)
    with pytest.raises(ImportConflictError,
                       match=r"memory id 'm-a' \(line \d+\) cannot be used in this tenant") as err:
        import_file(other, export)
    assert "default" not in str(err.value)  # the other tenant is not named (issue 20, 14)
    assert other.count(Filter(status=STATUSES)) == 0


def test_merge_reports_inserted_updated_unchanged_and_adds_new_edges(
        export: Path, filled: MemoryStore, tmp_path: Path) -> None:
    filled.upsert([filled.get("m-b").with_changes(content="Chroma changed since")])
    filled.add([Memory.new("only in the store", "fact", id="m-s")])
    filled.tables.edges.delete("id = 'e-2'")
    report = import_file(filled, export, mode="merge")
    assert report.inserted == () and report.updated == ("m-b",)
    assert sorted(report.unchanged) == ["m-a", "m-c"]
    assert (report.edges_added, report.edges_skipped) == (1, 1)
    assert filled.get("m-b").content == "Chroma server mode dropped connections"
    assert filled.get("m-s").content == "only in the store"
    assert sorted(e.id for e in filled.edges.list(include_inactive=True)) == ["e-1", "e-2"]


def test_vectors_are_kept_when_model_and_dimension_match(filled: MemoryStore,
                                                         tmp_path: Path) -> None:
    path = tmp_path / "v.ndjson"
    export_store(filled, path, with_vectors=True, exported_at=WHEN)
    embedder = FakeEmbedder()
    target = MemoryStore.open(str(tmp_path / "t"), embedder=embedder)
    report = import_file(target, path)
    assert (report.vectors_kept, report.embedded, embedder.calls) == (3, 0, 0)
    assert target.get("m-a", with_vectors=True).vector == filled.get(
        "m-a", with_vectors=True).vector


def test_vectors_of_another_model_are_left_out_and_reembedded(filled: MemoryStore,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "v.ndjson"
    export_store(filled, path, with_vectors=True, exported_at=WHEN)
    other = FakeEmbedder()
    other.model_id = "test/other-model"
    target = MemoryStore.open(str(tmp_path / "t"), embedder=other)
    report = import_file(target, path)
    assert (report.vectors_kept, report.embedded) == (0, 3)
    assert "come from 'test/fake-bow' (16-d)" in report.notes[0]


def test_memories_without_a_model_are_written_pending(export: Path, tmp_path: Path) -> None:
    target = MemoryStore.open(str(tmp_path / "t"), embedder=FakeEmbedder())
    target.embedder = UnavailableEmbedder("test/fake-bow", 16, "no model here")
    report = import_file(target, export)
    assert report.pending == 3 and report.embedding_error == "no model here"
    assert {m.embedding_status for m in target.list(Filter(status=STATUSES))} == {"pending"}


def test_embed_false_keeps_exported_embedding_states(filled: MemoryStore,
                                                     tmp_path: Path) -> None:
    filled.tables.memories.update(where="id = 'm-a'",
                                  values_sql={"embedding_status": "'failed'", "vector": "NULL"})
    path = tmp_path / "v.ndjson"
    export_store(filled, path, with_vectors=True, exported_at=WHEN)
    target = fresh_store(tmp_path)
    report = import_file(target, path, embed=False, record_audit=False)
    assert report.pending == 1 and report.vectors_kept == 2
    assert target.get("m-a").embedding_status == "failed"
    export_store(target, tmp_path / "again.ndjson", with_vectors=True, exported_at=WHEN)
    assert body(tmp_path / "again.ndjson") == body(path)


def test_dangling_edges_are_kept_and_reported(filled: MemoryStore, tmp_path: Path) -> None:
    filled.tables.memories.delete("id = 'm-c'")
    path = tmp_path / "x.ndjson"
    export_store(filled, path, exported_at=WHEN)
    report = import_file(fresh_store(tmp_path), path)
    assert report.edges_added == 2 and report.dangling_edges == 1
    assert "1 edges point at memories this tenant does not hold" in report.notes[0]


def test_a_failed_write_restores_every_table(export: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    target = fresh_store(tmp_path)
    before = target.count(Filter(status=STATUSES))

    def broken(*args: object, **kwargs: object) -> int:
        raise OSError("disk full")

    monkeypatch.setattr("memory_core.exchange.importer._append_new", broken)
    with pytest.raises(OSError, match="disk full"):
        import_file(target, export)
    assert target.count(Filter(status=STATUSES)) == before == 0
    assert target.tables.edges.count_rows() == 0


def test_unknown_format_and_mode(export: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError, match="unknown import format 'csv'; known: auto, "
                                                 "memlens, superagents"):
        import_file(fresh_store(tmp_path), export, format="csv")
    with pytest.raises(ValueError, match="unknown import mode 'replace'"):
        import_file(fresh_store(tmp_path), export, mode="replace")  # type: ignore[arg-type]
