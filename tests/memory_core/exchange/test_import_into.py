"""Importing into a store that does not exist yet (issue 20, item 4): bad input creates
nothing; good input creates the store; a dry run never creates it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_into
from memory_core.model.config import Settings
from memory_core.model.errors import MemlensError
from memory_core.store import MemoryStore, store_exists
from tests.conftest import FakeEmbedder


def _settings(tmp_path: Path, store: Path) -> Settings:
    return Settings(store_uri=str(store), model_cache=tmp_path / "cache")


def test_bad_input_creates_no_store(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"memlens_export": 1, "schema_version": 1}\n{"kind": "memory"}\n')
    target = tmp_path / "new-store"
    with pytest.raises(MemlensError, match="line 2"):
        import_into(_settings(tmp_path, target), bad, embedder=FakeEmbedder())
    assert not target.exists()
    assert not list((tmp_path / "cache").rglob("*.arrow"))  # no staged content left


def test_a_dry_run_into_a_missing_store_creates_nothing(filled: MemoryStore,
                                                       tmp_path: Path) -> None:
    export_store(filled, tmp_path / "e.ndjson")
    target = tmp_path / "new-store"
    report = import_into(_settings(tmp_path, target), tmp_path / "e.ndjson",
                         embedder=FakeEmbedder(), dry_run=True)
    assert report.dry_run and len(report.inserted) == 3
    assert not target.exists()


def test_good_input_creates_the_store_and_imports(filled: MemoryStore, tmp_path: Path) -> None:
    export_store(filled, tmp_path / "e.ndjson")
    target = tmp_path / "new-store"
    report = import_into(_settings(tmp_path, target), tmp_path / "e.ndjson",
                         embedder=FakeEmbedder())
    assert len(report.inserted) == 3 and store_exists(str(target))
