"""Import staging stays with the store, never in the system temp folder (issue 20, item 3)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.store import MemoryStore
from memory_core.store.guard import WriteGuard


def test_an_import_stages_inside_the_store_not_in_the_system_temp(
        filled: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    export_store(filled, tmp_path / "e.ndjson")
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    seen: list[Path] = []
    original = WriteGuard.scratch

    def spy(self: WriteGuard, purpose: str) -> Iterator[Path]:
        with original(self, purpose) as folder:
            seen.append(folder)
            yield folder

    monkeypatch.setattr(WriteGuard, "scratch", contextlib.contextmanager(spy))
    target = MemoryStore.open(str(tmp_path / "target"), embedder=filled.embedder)
    import_file(target, tmp_path / "e.ndjson")
    assert seen and all(Path(target.uri) in f.parents for f in seen)
    assert not any(f.exists() for f in seen)
    assert list(system_temp.iterdir()) == []
