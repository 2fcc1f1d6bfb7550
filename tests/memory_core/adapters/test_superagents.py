"""The superagents adapter as an importer: counts, a second import that adds nothing,
--limit and --dry-run, and broken files that change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions
from memory_core.model.errors import ExportFormatError, InvalidRecordError
from memory_core.store import MemoryStore

KANI = Path(__file__).parents[1] / "exchange" / "data" / "superagents_kani.ndjson"
MANIFEST = ('{"superagents_export": "1", "schema_version": 1, "agent_id": "kani", '
            '"record_types": ["Fact", "Decision", "Identity"]}\n')


def test_imports_once_then_adds_nothing(store: MemoryStore) -> None:
    first = import_file(store, KANI)
    assert first.format == "superagents" and first.mode == "merge"
    assert sorted(first.inserted) == ["kani-decision-002", "kani-fact-001", "kani-fact-002",
                                      "kani-identity-001"]
    assert store.get("kani-fact-002").agent == "rem"  # a record's own agent_id wins
    assert store.get("kani-decision-002").memory_type == "decision"
    versions = store.table_versions()
    again = import_file(store, KANI)
    assert again.inserted == () and len(again.unchanged) == 4
    assert store.table_versions() == versions


def test_limit_and_dry_run(store: MemoryStore) -> None:
    report = import_file(store, KANI, options=ReadOptions(limit=2), dry_run=True)
    assert report.dry_run and report.inserted == ("kani-identity-001", "kani-fact-001")
    assert store.count() == 0
    assert len(import_file(store, KANI, options=ReadOptions(limit=2)).inserted) == 2


@pytest.mark.parametrize("body, error, message", [
    ('{"type": "Fact", "id": "f", "content": "x", "created_at": "2026-01-01T00:00:00Z"',
     ExportFormatError, r"broken.ndjson: line 3 is not JSON"),
    ('{"type": "Fact", "id": "f", "content": 7, "created_at": "2026-01-01T00:00:00Z"}',
     InvalidRecordError, "line 3: content must be text, got 7"),
    ('{"type": "Fact", "id": "f", "created_at": "2026-01-01T00:00:00Z"}',
     InvalidRecordError, "line 3: the memory record has no 'content'"),
    ('[1, 2]', ExportFormatError, "line 3 is not a JSON object"),
])
def test_broken_files_change_nothing(store: MemoryStore, tmp_path: Path, body: str,
                                     error: type[Exception], message: str) -> None:
    import_file(store, KANI)
    versions = store.table_versions()
    path = tmp_path / "broken.ndjson"
    path.write_text(MANIFEST + '{"type": "Fact", "id": "ok", "content": "fine", '
                    '"created_at": "2026-01-01T00:00:00Z"}\n' + body + "\n")
    with pytest.raises(error, match=message):
        import_file(store, path, format="superagents")
    assert store.table_versions() == versions


def test_a_binary_file_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "kani.ndjson"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ExportFormatError, match="line 1"):
        import_file(store, path, format="superagents")
    assert store.count() == 0
