"""A new LanceDB-table source is a `SourceFormat` value alone: no class of its own, read by
the one `LanceTableAdapter` (sniffed, mapped, vectors kept, extra columns in metadata)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import memory_core.exchange.readers as registry
from memory_core.adapters.lance_tables.adapter import LanceTableAdapter
from memory_core.adapters.lance_tables.columns import (
    is_key,
    is_text,
    is_text_list,
    is_time,
    is_vector,
)
from memory_core.adapters.lance_tables.mapping import (
    Column,
    FixedColumns,
    Sniff,
    SourceFormat,
    Vectors,
)
from memory_core.exchange.importer import import_file
from memory_core.model.errors import ExportFormatError
from memory_core.store import MemoryStore
from tests.memory_core.adapters.lance_fixture import (
    MINILM,
    StandIn384,
    build,
    source_vector,
    vector_of,
)

#: A notes app's table: its own column names, its vectors made with the default model.
NOTES = SourceFormat(
    name="notes_app", summary="a notes app's LanceDB `notes` table", sniff_order=75,
    options=frozenset({"limit", "project", "table"}), default_table="notes",
    columns=FixedColumns(
        what="a notes table",
        needed={"id": Column("note_id", is_key), "content": Column("body", is_text),
                "memory_type": Column("kind", is_text), "created_at": Column("written", is_time)},
        optional={"project": Column("space", is_text), "tags": Column("labels", is_text_list),
                  "vector": Column("embedding", is_vector)},
    ),
    sniff=Sniff(any_of=frozenset({"space"})),
    vectors=Vectors(fallback=MINILM),
)
COLUMNS = {"note_id": "string", "body": "string", "kind": "string", "written": "timestamp",
           "space": "string", "labels": "list<string>", "mood": "string",
           "embedding": "vector[384]"}
ROWS = [
    {"note_id": "n1", "body": "Deploys run from the release branch only", "kind": "pref",
     "written": "2026-03-01T09:30:00Z", "space": "ops", "labels": ["deploy", ""],
     "mood": "firm", "embedding": "embed"},
    {"note_id": "n2", "body": "  ", "kind": "fact", "written": "2026-03-02T10:00:00Z",
     "space": "ops", "labels": [], "mood": None, "embedding": None},
    {"note_id": "n3", "body": "The staging database is rebuilt every Monday", "kind": "fact",
     "written": "2026-03-03T11:00:00Z", "space": "infra", "labels": None, "mood": "",
     "embedding": "embed"},
]


@pytest.fixture
def notes_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The notes table in a LanceDB folder, its format registered for this test only."""
    registry.reader_names()  # the installed formats load first
    monkeypatch.setitem(registry._READERS, NOTES.name, LanceTableAdapter.of(NOTES)())
    tables = {"notes": {"columns": COLUMNS, "rows": ROWS, "content_column": "body"}}
    return build(tmp_path / "notes-db", tables)


@pytest.fixture
def store384(tmp_path: Path) -> MemoryStore:
    return MemoryStore.open(str(tmp_path / "store384"), embedder=StandIn384(), tenant="default")


def test_a_mapping_alone_is_an_import_format(notes_db: Path, store384: MemoryStore) -> None:
    reader = registry.detect_reader(notes_db)
    assert reader.name == "notes_app" and type(reader).__name__ == "NotesAppAdapter"
    assert reader.params == ("model",) and reader.options == NOTES.options

    report = import_file(store384, notes_db)  # --format auto
    assert report.format == "notes_app"
    assert list(report.inserted) == ["n1", "n3"]
    assert report.skipped == {"empty content": {"count": 1, "examples": ["row 2 (id n2)"]}}
    first, third = store384.get("n1"), store384.get("n3")
    assert (first.content, first.memory_type, first.project, first.tags) == (
        "Deploys run from the release branch only", "preference", "ops", ("deploy",))
    assert first.source == "import:notes_app"
    assert first.metadata == {"mood": "firm", "source_memory_type": "pref"}
    assert third.metadata == {} and third.tags == ()
    # the format names the store's model, so the table's vectors are kept
    kept = source_vector("Deploys run from the release branch only", 384)
    assert np.allclose(vector_of(store384, "n1"), kept)


def test_the_mapping_options_and_refusals_apply(notes_db: Path, store384: MemoryStore) -> None:
    report = import_file(store384, notes_db, format="notes_app",
                         options=registry.ReadOptions(project="infra"))
    assert list(report.inserted) == ["n3"]
    assert report.skipped["project is not 'infra' (--project)"]["count"] == 2

    bare = build(notes_db.parent / "bare-db", {"notes": {
        "columns": {"note_id": "string", "kind": "string", "written": "timestamp"},
        "rows": [{"note_id": "n9", "kind": "fact", "written": "2026-03-01T00:00:00Z"}]}})
    with pytest.raises(ExportFormatError, match=r"has no column 'body', so it is not a notes "
                                                r"table; its columns: note_id, kind, written"):
        import_file(store384, bare, format="notes_app")
    assert store384.count() == 1


def test_the_shipped_formats_are_mappings_of_the_one_adapter() -> None:
    """herd, make_skills and lancedb add no code of their own: only their format's data."""
    own = {"source_format", "name", "summary", "sniff_order", "options", "params"}
    for name in ("herd", "make_skills", "lancedb"):
        cls = type(registry.get_reader(name))
        assert issubclass(cls, LanceTableAdapter) and cls.__bases__ == (LanceTableAdapter,)
        assert {k for k in vars(cls) if not k.startswith("_")} == own
        assert cls.source_format.name == name
