"""The demo copy the browser tests serve: an export taken, then one memory archived, so
Export Diff compares two sides that differ."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memory_core import MemoryStore, Settings, archive, default_exports_dir, export_store

#: The export Export Diff opens (the newest of the tenant) as side A.
EXPORT_NAME = "before-archive.ndjson"


@dataclass(frozen=True)
class DemoCopy:
    """The copied store's folder, and the memory archived after the export."""

    store: Path
    archived: str

    def open(self) -> MemoryStore:
        """The store, opened here (the server keeps it open too: LanceDB allows that)."""
        settings = Settings.from_env(env={}, store_uri=str(self.store))
        return MemoryStore.open(settings=settings, create=False)


def prepare(uri: Path, model_cache: Path) -> DemoCopy:
    """Export the store at `uri` into its exports folder, then archive one memory (the
    smallest id, the same every run)."""
    settings = Settings.from_env(env={}, store_uri=str(uri), model_cache=model_cache)
    store = MemoryStore.open(settings=settings, create=False)
    export_store(store, default_exports_dir(store.uri) / EXPORT_NAME)
    chosen = min(store.ids())
    archive(store, [chosen], reason="e2e: a change for Export Diff to show")
    return DemoCopy(uri, chosen)
