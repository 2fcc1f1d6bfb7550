"""The canonical export file: manifest first, canonical body, checksum enforced."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_core.exchange.ndjson import write_export
from memory_core.exchange.readers.memlens import read_export
from memory_core.model.canonical import edge_from_doc, memory_doc, memory_from_doc
from memory_core.model.errors import ExportFormatError, SchemaVersionError
from memory_core.model.records import Edge, Memory

WHEN = datetime(2026, 10, 1, tzinfo=UTC)


def _records() -> tuple[list[Memory], list[Edge]]:
    a = Memory.new("ünïcode 😀 memory", "decision", id="b-id", project="herd", tags=[],
                   created_at="2026-05-01T10:00:00.123456Z", confidence=0.87,
                   metadata={"hdr_number": "HDR-0033", "nested": {"k": [1, 2]}})
    b = Memory.new("second", "observation", id="a-id", created_at="2026-05-02T00:00:00Z")
    return [a, b], [Edge.new("a-id", "b-id", "causes", id="e1", created_at=WHEN, strength=0.5)]


def test_manifest_first_then_sorted_canonical_body(tmp_path: Path) -> None:
    memories, edges = _records()
    manifest = write_export(tmp_path / "x.ndjson", memories, edges, tenant="default",
                            exported_at=WHEN)
    lines = (tmp_path / "x.ndjson").read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    assert head["memlens_export"] == 1 and head["schema_version"] == 2
    assert head["counts"] == {"memory": 2, "edge": 1}
    assert head["exported_at"] == "2026-10-01T00:00:00Z"
    assert head["body_sha256"] == manifest.body_sha256
    kinds_ids = [(json.loads(line)["kind"], json.loads(line)["id"]) for line in lines[1:]]
    assert kinds_ids == [("memory", "a-id"), ("memory", "b-id"), ("edge", "e1")]
    doc = json.loads(lines[2])
    assert list(doc) == sorted(doc) and doc["confidence"] == 0.87
    assert doc["created_at"] == "2026-05-01T10:00:00.123456Z"
    assert "😀" in lines[2] and "vector" not in doc
    assert json.loads(lines[3])["relation"] == "caused"


def test_same_records_give_identical_bytes_and_round_trip(tmp_path: Path) -> None:
    memories, edges = _records()
    write_export(tmp_path / "1.ndjson", memories, edges, tenant="default", exported_at=WHEN)
    write_export(tmp_path / "2.ndjson", list(reversed(memories)), edges, tenant="default",
                 exported_at=WHEN)
    assert (tmp_path / "1.ndjson").read_bytes() == (tmp_path / "2.ndjson").read_bytes()
    _, records = read_export(tmp_path / "1.ndjson")
    back = [memory_from_doc(r) for r in records if r["kind"] == "memory"]
    assert [memory_doc(m) for m in back] == [memory_doc(m) for m in sorted(memories,
                                                                          key=lambda m: m.id)]
    assert edge_from_doc(records[-1]).strength == 0.5


def test_edited_or_truncated_file_is_refused(tmp_path: Path) -> None:
    memories, edges = _records()
    path = tmp_path / "x.ndjson"
    write_export(path, memories, edges, tenant="default", exported_at=WHEN)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("second", "sec0nd"), encoding="utf-8")
    with pytest.raises(ExportFormatError, match="does not match the manifest"):
        read_export(path)
    path.write_text("\n".join(text.splitlines()[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(ExportFormatError, match="truncated or was edited"):
        read_export(path)


def test_newer_schema_and_garbage_lines(tmp_path: Path) -> None:
    path = tmp_path / "x.ndjson"
    path.write_text('{"memlens_export": 1, "schema_version": 9}\n')
    with pytest.raises(SchemaVersionError, match="schema_version 9.*upgrade memlens"):
        read_export(path)
    path.write_text('{"memlens_export": 1, "schema_version": 1, "body_sha256": ""}\nnot json\n')
    with pytest.raises(ExportFormatError, match="line 2 is not JSON"):
        read_export(path)
