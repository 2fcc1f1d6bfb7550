"""Where a Ray worker reads a table of a store: its Lance dataset URI, version and options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_core.model.schema import TABLE_OF_KIND
from memory_core.store import MemoryStore, Snapshot


@dataclass(frozen=True)
class LanceSource:
    """One table of a store as `ray.data.read_lance` opens it: at a pinned version, so the
    workers read exactly what the job's snapshot holds, whatever is written meanwhile."""

    uri: str
    version: int
    storage_options: dict[str, str] | None

    def read(self, ray: Any, columns: list[str], where: str | None) -> Any:
        """The rows matching `where` (a LanceDB predicate) as a Ray dataset."""
        return ray.data.read_lance(self.uri, version=self.version, columns=columns,
                                   filter=where or None,
                                   storage_options=self.storage_options)


def lance_source(store: MemoryStore, snap: Snapshot, kind: str) -> LanceSource:
    """The table holding records of `kind` (memory, edge, ...) at the snapshot's version."""
    name = TABLE_OF_KIND[kind]
    handle = snap.handles[name]
    return LanceSource(str(handle.uri), int(snap.versions[name]),
                       store.tables.storage_options)
