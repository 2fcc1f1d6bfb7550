"""The demo copy the browser tests serve: an export taken, then one memory archived, so
Export Diff compares two sides that differ."""

from __future__ import annotations

from pathlib import Path

from memory_core import MemoryStore, Settings, archive, default_exports_dir, export_store

#: The export Export Diff opens (the newest of the tenant) as side A.
EXPORT_NAME = "before-archive.ndjson"


def archived_id(store: MemoryStore) -> str:
    """The memory `prepare` archives: the first active one by id (the same every run)."""
    return min(m.id for m in store.list(limit=50))


def prepare(uri: Path, model_cache: Path) -> Path:
    """Export the store at `uri` into its exports folder, then archive one memory; `uri`."""
    settings = Settings.from_env(env={}, store_uri=str(uri), model_cache=model_cache)
    store = MemoryStore.open(settings=settings, create=False)
    export_store(store, default_exports_dir(store.uri) / EXPORT_NAME)
    archive(store, [archived_id(store)], reason="e2e: a change for Export Diff to show")
    return uri
