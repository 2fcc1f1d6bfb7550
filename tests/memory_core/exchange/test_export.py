"""`export_store` and the streaming `ExportWriter`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.exchange.export import default_exports_dir, export_store
from memory_core.exchange.ndjson import ExportWriter
from memory_core.exchange.store_lines import memory_lines
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.memory_core.exchange.conftest import WHEN, body


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_manifest_then_memories_of_every_status_then_edges_then_audit(
        filled: MemoryStore, tmp_path: Path) -> None:
    written = export_store(filled, tmp_path / "x.ndjson", with_audit=True, exported_at=WHEN)
    head, *records = _lines(tmp_path / "x.ndjson")
    assert head == written.manifest.to_dict()
    assert set(head) == {"memlens_export", "schema_version", "exported_at", "tenant",
                         "record_types", "counts", "body_sha256"}
    assert head["record_types"] == ["memory", "edge", "event", "audit"]
    assert head["counts"] == {"memory": 3, "edge": 2, "event": 0, "audit": 2}
    assert [(r["kind"], r["id"]) for r in records[:5]] == [
        ("memory", "m-a"), ("memory", "m-b"), ("memory", "m-c"), ("edge", "e-1"),
        ("edge", "e-2")]
    assert [r["status"] for r in records[:3]] == ["active", "archived", "superseded"]
    assert {r["kind"] for r in records[5:]} == {"audit"}
    assert [r["id"] for r in records[5:]] == sorted(r["id"] for r in records[5:])
    assert "vector" not in records[0] and "embedding" not in head


def test_two_exports_of_an_unchanged_store_have_identical_bodies(filled: MemoryStore,
                                                                tmp_path: Path) -> None:
    a = export_store(filled, tmp_path / "a.ndjson")
    b = export_store(filled, tmp_path / "b.ndjson")
    assert body(tmp_path / "a.ndjson") == body(tmp_path / "b.ndjson")
    assert a.manifest.body_sha256 == b.manifest.body_sha256


def test_a_filter_exports_matching_memories_and_the_edges_between_them(
        filled: MemoryStore, tmp_path: Path) -> None:
    written = export_store(filled, tmp_path / "x.ndjson", filter=Filter(project="atlas"))
    assert written.manifest.counts == {"memory": 2, "edge": 1, "event": 0}  # e-2 reaches m-c
    written = export_store(filled, tmp_path / "y.ndjson", filter=Filter(status="active"))
    assert written.manifest.counts == {"memory": 1, "edge": 0, "event": 0}


def test_vectors_and_the_model_they_came_from(filled: MemoryStore, tmp_path: Path) -> None:
    written = export_store(filled, tmp_path / "v.ndjson", with_vectors=True)
    head, first, *_ = _lines(tmp_path / "v.ndjson")
    assert head["embedding"] == {"model": "test/fake-bow", "dimension": 16}
    assert written.manifest.embedding == head["embedding"]
    stored = filled.get("m-a", with_vectors=True).vector
    assert stored is not None and len(first["vector"]) == 16
    assert [round(x, 5) for x in first["vector"]] == [round(x, 5) for x in stored]


def test_lines_come_in_id_order_across_chunks(store: MemoryStore) -> None:
    ids = [f"id-{i:03d}" for i in (5, 3, 9, 1, 7, 2, 8, 0, 6, 4)]
    store.add([Memory.new(f"memory number {i}", "fact", id=i) for i in ids])
    snap = store.snapshot()
    got = [i for i, _ in memory_lines(snap, "tenant = 'default'", chunk_rows=3)]
    assert got == sorted(ids)


def test_a_write_after_the_snapshot_does_not_tear_the_export(filled: MemoryStore) -> None:
    snap = filled.snapshot()
    filled.add([Memory.new("written during the export", "fact", id="m-late")])
    got = [i for i, _ in memory_lines(snap, "tenant = 'default'")]
    assert got == ["m-a", "m-b", "m-c"]


def test_writer_refuses_kinds_out_of_order_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "x.ndjson"
    target.write_text("previous export\n")
    with pytest.raises(ValueError, match="a 'memory' line cannot follow the 'edge' lines"):
        with ExportWriter(target, tenant="default", exported_at=WHEN) as writer:
            writer.write("edge", '{"id":"e"}')
            writer.write("memory", '{"id":"m"}')
    assert target.read_text() == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.ndjson"]


def test_default_exports_dir() -> None:
    assert default_exports_dir("./data/store") == Path("data/exports")
    assert default_exports_dir("s3://bucket/store") == Path("data/exports")


_KILLED_WRITER = """
import sys, time, datetime
from memory_core.exchange.ndjson import ExportWriter
writer = ExportWriter(sys.argv[1], tenant="default", exported_at=datetime.datetime(2026, 1, 1))
writer.write("memory", '{"id":"m","content":"plaintext of a memory"}')
writer._body.flush()
print("ready", flush=True)
time.sleep(60)
"""


@pytest.mark.hardening
def test_a_killed_exports_body_is_swept_by_the_next_export_there(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    target = tmp_path / "out" / "x.ndjson"
    process = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    process.send_signal(signal.SIGKILL)
    process.wait()
    (left,) = target.parent.iterdir()  # the plaintext body, named by the dead writer
    assert left.name.startswith(f".memlens-{process.pid}-") and left.suffix == ".body"
    with ExportWriter(target.parent / "y.ndjson", tenant="default", exported_at=WHEN) as writer:
        writer.write("memory", '{"id":"n"}')
        writer.commit()
    assert sorted(p.name for p in target.parent.iterdir()) == ["y.ndjson"]


def test_an_export_onto_a_full_disk_leaves_no_temp_file(filled: MemoryStore, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import io

    from memory_core.exchange import ndjson

    class FullDisk(io.FileIO):
        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    # the body file as `os.fdopen` makes it, on a disk with no room left: a small buffer, so
    # the export's writes reach the disk, and closing it (flushing the rest) fails again
    monkeypatch.setattr(ndjson.os, "fdopen", lambda fd, mode, buffering=-1:
                        io.BufferedWriter(FullDisk(fd, "wb"), buffer_size=1024))
    with pytest.raises(OSError, match="No space left"):
        export_store(filled, tmp_path / "out" / "x.ndjson")
    assert list((tmp_path / "out").iterdir()) == []
