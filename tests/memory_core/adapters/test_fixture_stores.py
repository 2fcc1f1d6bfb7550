"""Herd and Make_Skills databases written by an older and by the newest lancedb, and by the
newest pylance (tests/fixtures/stores/<schema>_<writer>-<version>/, made by make_fixtures.py
there), import into memlens, through the library and through `memlens import`, and their
memories are found by search afterwards."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memory_core.exchange.importer import import_file
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.conftest import run_cli

FIXTURES = Path(__file__).parents[2] / "fixtures" / "stores"
#: The releases that wrote the fixtures: an older lancedb, the newest one, the newest pylance.
WRITERS = ("lancedb-0.21.2", "lancedb-0.40.0", "pylance-14.0.2")
PREFIX = {"herd": "herd-", "make_skills": "skills-"}
CASES = [pytest.param(schema, writer, id=f"{schema}_{writer}")
         for schema in ("herd", "make_skills") for writer in WRITERS]


def _copy(schema: str, writer: str, tmp_path: Path) -> Path:
    """A copy of the fixture (an import reads in place; the committed one stays as written)."""
    source = FIXTURES / f"{schema}_{writer}"
    assert source.is_dir(), f"{source} is missing; run tests/fixtures/stores/make_fixtures.py"
    return Path(shutil.copytree(source, tmp_path / source.name))


@pytest.mark.parametrize(("schema", "writer"), CASES)
def test_import_and_search(schema: str, writer: str, store: MemoryStore,
                           tmp_path: Path) -> None:
    report = import_file(store, _copy(schema, writer, tmp_path), format=schema)
    prefix = PREFIX[schema]
    assert list(report.inserted) == [f"{prefix}{i}" for i in range(3)]
    assert store.count() == 3
    found = search(store, "scratch folder imports", limit=3)
    assert found[0].memory.id == f"{prefix}1"
    assert "scratch folder" in found[0].memory.content


@pytest.mark.parametrize(("schema", "writer"), CASES)
def test_memlens_import_then_search(schema: str, writer: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # BM25 alone: no model to load
    source = _copy(schema, writer, tmp_path)
    store = str(tmp_path / "store")
    code, out, err = run_cli(["--store", store, "import", str(source), "--format", schema],
                             capsys)
    assert code == 0, err
    assert f"read 3 records from {source}" in out
    assert "memories: 3 imported" in out
    code, out, err = run_cli(["--store", store, "search", "scratch folder"], capsys)
    assert code == 0, err
    assert f"{PREFIX[schema]}1" in out.splitlines()[0]
