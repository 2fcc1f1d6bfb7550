"""`export_store`: a store's tenant as a canonical NDJSON export, streamed.

The format is that of docs/design/exports.md.

Memories (every status unless the filter names some), then edges, then events (recall, cite,
correct: they feed the decay composite, so a restored store ranks as the original did), then
optionally audit rows, each sorted by id, from one snapshot of the tables. Two exports of an
unchanged store have byte-identical bodies and the same `body_sha256`; only `exported_at`
differs.

With a filter, the edges exported are those whose two endpoints are both exported, so the
file imports on its own, and the events exported are those of the exported memories. Without
one, every edge of the tenant is exported, dangling ones included: an export is the recovery
copy and must not lose anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from memory_core.exchange.ndjson import ExportFile, ExportWriter
from memory_core.exchange.store_lines import (
    Progress,
    audit_lines,
    edge_lines,
    event_lines,
    memory_lines,
)
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore, Snapshot

#: Where an export's memory lines come from: (store, snapshot, predicate, with_vectors,
#: progress) -> (id, canonical line) sorted by id. In-process by default; the Ray engine
#: renders them in its workers (memory_core.distributed).
MemorySource = Callable[[MemoryStore, Snapshot, str, bool, "Progress | None"],
                        Iterator[tuple[str, str]]]


def local_memory_lines(store: MemoryStore, snap: Snapshot, where: str, with_vectors: bool,
                       progress: Progress | None) -> Iterator[tuple[str, str]]:
    """The memory lines rendered in this process (the default `MemorySource`)."""
    return memory_lines(snap, where, with_vectors=with_vectors, progress=progress)


def export_filter(filter: Filter | None) -> Filter:
    """`filter` with every status selected unless it names some (exports keep archived and
    superseded memories)."""
    filter = filter or Filter()
    return filter if filter.status is not None else replace(filter, status=STATUSES)


def selects_everything(filter: Filter) -> bool:
    """True when `filter` selects every memory of the tenant."""
    return replace(filter, status=None) == Filter() and set(filter.statuses()) == set(STATUSES)


def export_store(
    store: MemoryStore,
    path: Path | str,
    *,
    filter: Filter | None = None,
    with_vectors: bool = False,
    with_audit: bool = False,
    exported_at: datetime | None = None,
    progress: Progress | None = None,
    memory_source: MemorySource = local_memory_lines,
) -> ExportFile:
    """Write the store's tenant (or the memories `filter` selects) to `path`, atomically.

    Memory use is bounded by one chunk of records (plus the exported ids when filtering).
    `progress` is told how many memories each chunk wrote. `memory_source` renders the
    memory lines (in this process by default; `memory_core.distributed` on Ray).
    """
    flt = export_filter(filter)
    where = flt.to_predicate(store.tenant)
    restrict = not selects_everything(flt)
    snap = store.snapshot()
    embedding = ({"model": store.model_id, "dimension": store.dimension}
                 if with_vectors else None)
    kinds = ("memory", "edge", "event", "audit") if with_audit else ("memory", "edge", "event")
    with ExportWriter(path, tenant=store.tenant, exported_at=exported_at or utcnow(),
                      record_types=kinds, embedding=embedding) as writer:
        ids: list[str] = []
        for memory_id, line in memory_source(store, snap, where, with_vectors, progress):
            writer.write("memory", line)
            if restrict:
                ids.append(memory_id)
        endpoints = pa.array(ids, pa.string()) if restrict else None
        for _, line in edge_lines(snap, store.tenant, endpoints=endpoints):
            writer.write("edge", line)
        for _, line in event_lines(snap, store.tenant, memory_ids=endpoints):
            writer.write("event", line)
        if with_audit:
            for _, line in audit_lines(snap, store.tenant):
                writer.write("audit", line)
        return writer.commit()


def default_exports_dir(store_uri: str) -> Path:
    """Where exports go by default: `exports/` beside a local store folder (`./data/store` ->
    `./data/exports`), `./data/exports` for object-storage stores."""
    from memory_core.store.tables import is_remote

    if is_remote(store_uri):
        return Path("data/exports")
    return Path(store_uri.removeprefix("file://")).expanduser().parent / "exports"
