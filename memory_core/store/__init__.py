"""The store layer: `MemoryStore` over LanceDB (memories, edges, audit, events), its parts and
indexes.

Everything that touches the LanceDB tables lives in this package; the engines above it use
`MemoryStore`'s own methods (the memories), its public parts (`store.edges`, `store.audit`,
`store.events`, `store.queries`, `store.bulk`, ...: see `memory_store.py`) and
`store.snapshot()`.
"""

from memory_core.store.memory_store import MemoryStore
from memory_core.store.object_storage import is_remote, storage_options
from memory_core.store.reports import AddReport, UpsertReport, VersionInfo
from memory_core.store.snapshot import Snapshot
from memory_core.store.tables import StoreTables, open_tables, store_exists

__all__ = ["AddReport", "MemoryStore", "Snapshot", "StoreTables", "UpsertReport",
           "VersionInfo", "is_remote", "open_tables", "storage_options", "store_exists"]
