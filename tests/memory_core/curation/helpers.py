"""Comparing a store's state before and after: its export body, and its table versions."""

from __future__ import annotations

from pathlib import Path

from memory_core.exchange.export import export_store
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore


def export_body(store: MemoryStore, folder: Path, name: str) -> list[str]:
    """The export's record lines (every status, with vectors): the store's state."""
    path = folder / f"{name}.ndjson"
    export_store(store, path, filter=Filter(status=STATUSES), with_vectors=True)
    return path.read_text(encoding="utf-8").splitlines()[1:]
