"""The import-format registry and the readers' own checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.exchange.readers import (
    _READERS,
    NO_OPTIONS,
    ExportReader,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    detect_reader,
    get_reader,
    open_source,
    reader_names,
    register_reader,
)
from memory_core.model.errors import ExportFormatError, SchemaVersionError, UnknownFormatError
from tests.memory_core.exchange.conftest import fresh_store

DATA = Path(__file__).parent / "data"


class LinesReader(ExportReader):
    """A toy format: one memory per non-empty line of a .txt file."""

    name = "lines"
    summary = "plain text, one memory a line"

    def sniff(self, path: Path, first_line: str) -> bool:
        return path.suffix == ".txt"

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        info = SourceInfo(format=self.name, path=str(path), schema_version=1)

        def records():  # type: ignore[no-untyped-def]
            for number, text in enumerate(path.read_text().splitlines(), start=1):
                yield SourceRecord(number, "memory", {
                    "kind": "memory", "id": f"line-{number}", "content": text,
                    "memory_type": "note", "created_at": "2026-01-01T00:00:00Z"})

        return ExportSource(info, records)


@pytest.fixture
def lines_reader():  # type: ignore[no-untyped-def]
    register_reader(LinesReader())
    yield
    _READERS.pop("lines")


def test_builtin_readers_and_sniffing() -> None:
    assert reader_names()[:2] == ["memlens", "superagents"]
    assert detect_reader(DATA / "superagents_kani.ndjson").name == "superagents"
    assert detect_reader(DATA / "v0_export.ndjson").name == "memlens"
    with pytest.raises(UnknownFormatError, match="unknown import format 'xml'"):
        get_reader("xml")
    with pytest.raises(ExportFormatError, match="there is nothing at"):
        open_source(DATA / "missing.ndjson")


def test_a_registered_reader_is_picked_by_auto_and_imported(lines_reader, tmp_path: Path
                                                            ) -> None:  # type: ignore[no-untyped-def]
    from memory_core.exchange.importer import import_file

    path = tmp_path / "notes.txt"
    path.write_text("first note\nsecond note\n")
    assert detect_reader(path).name == "lines"
    report = import_file(fresh_store(tmp_path), path)
    assert report.format == "lines" and report.inserted == ("line-1", "line-2")
    with pytest.raises(ValueError, match="'lines' is already registered"):
        register_reader(LinesReader())


def test_superagents_checks(tmp_path: Path) -> None:
    path = tmp_path / "s.ndjson"
    path.write_text('{"superagents_export": "1", "schema_version": 2}\n')
    with pytest.raises(SchemaVersionError, match="superagents export of schema_version 2, "
                                                 r"newer than this memlens reads \(1\)"):
        open_source(path)
    path.write_text('{"superagents_export": "1", "schema_version": 1, "record_types": '
                    '["Fact"]}\n{"type": "Goal", "id": "g", "content": "x", '
                    '"created_at": "2026-01-01T00:00:00Z"}\n')
    with pytest.raises(ExportFormatError, match=r"line 2: record type 'Goal' is not one of the "
                                                r"manifest's record_types \(Fact\)"):
        list(open_source(path).records())
