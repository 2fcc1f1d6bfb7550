"""The store layer: `MemoryStore` over LanceDB (memories, edges, audit), its parts and indexes.

Everything that touches the LanceDB tables lives in this package; the engines above it use
`MemoryStore`'s methods, `store.bulk` (Arrow-level bulk work) and `store.snapshot()`.
"""

from memory_core.store.memory_store import MemoryStore
from memory_core.store.object_storage import is_remote, storage_options
from memory_core.store.reports import AddReport, UpsertReport, VersionInfo
from memory_core.store.snapshot import Snapshot
from memory_core.store.tables import StoreTables, open_tables, store_exists

__all__ = ["AddReport", "MemoryStore", "Snapshot", "StoreTables", "UpsertReport",
           "VersionInfo", "is_remote", "open_tables", "storage_options", "store_exists"]
