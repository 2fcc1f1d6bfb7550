"""Lance tables in a draft file format another Lance wrote (pylance 14's 2.3, `next`): the
herd, make_skills and lancedb imports refuse them in one line and import nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memory_core.adapters.lance_format import (
    TableFormat,
    installed_lance,
    installed_stable,
    manifest_writer,
)
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions
from memory_core.model.errors import ExportFormatError
from memory_core.store import MemoryStore
from tests.conftest import run_cli

#: Two tables pylance 14.0.2 wrote with data_storage_version="next" (make_fixture.py).
WRITTEN = Path(__file__).parent / "data" / "lance_next_format" / "pylance-14.0.2"
LANCEDB = ReadOptions(table="memories", params={"content": "content", "memory_type": "fact",
                                                "created_at": "created_at"})
CASES = {"herd": ("herd", ReadOptions()), "make_skills": ("make_skills", ReadOptions()),
         "lancedb": ("lancedb", LANCEDB)}


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return Path(shutil.copytree(WRITTEN, tmp_path / "db"))


def expected(database: Path, table: str) -> str:
    return (f"{database / (table + '.lance')}: Lance file format 2.3, a draft lance 14.0.2 "
            f"wrote, which {installed_lance()} here cannot read; with lance 14.0.2, run "
            f"lance.write_dataset(lance.dataset(SRC), DST, data_storage_version="
            f"'{installed_stable()}') and import DST; nothing was imported")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_draft_format_is_refused_in_one_line(store: MemoryStore, database: Path,
                                               case: str) -> None:
    fmt, options = CASES[case]
    table = "records" if fmt == "make_skills" else "memories"
    versions = store.table_versions()
    with pytest.raises(ExportFormatError) as caught:
        import_file(store, database, format=fmt, options=options)
    assert str(caught.value) == expected(database, table)
    assert store.table_versions() == versions and store.count() == 0


def test_auto_detection_still_names_the_format(store: MemoryStore, database: Path) -> None:
    with pytest.raises(ExportFormatError, match="Lance file format 2.3"):
        import_file(store, database / "records.lance")


def test_the_cli_prints_the_line_and_exits_1(database: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    monkeypatch.chdir(tmp_path)  # a short path: the whole line fits the CLI's 300 characters
    code, out, err = run_cli(["--store", "store", "import", "db", "--format", "herd"], capsys)
    assert code == 1
    assert err.strip().splitlines() == [f"Error: {expected(Path('db'), 'memories')}"]


def test_the_writer_comes_from_the_manifest() -> None:
    # Manifest field 13 (writer_version) = {1: "lance", 2: "14.0.2"}, after a varint field 3.
    writer = b"\x0a\x05lance\x12\x0614.0.2"
    manifest = b"\x18\x07" + bytes([13 << 3 | 2, len(writer)]) + writer
    assert manifest_writer(manifest) == "lance 14.0.2"
    assert manifest_writer(b"\x18\x07") is None


def test_a_stable_format_or_our_own_draft_is_read() -> None:
    assert TableFormat("2.3", "lance 14.0.2").draft
    assert not TableFormat(installed_stable(), "lance 14.0.2").draft
    assert not TableFormat("2.3", installed_lance()).draft
