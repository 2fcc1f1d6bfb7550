"""The staging step of an import: every record parsed, validated and set aside first.

`stage` reads a source to its end, checks each record (required fields, types,
`validate_memory` / `validate_edge` / `validate_event`, vector size, ids unique in the file)
and writes it, in the store's row shape, to Arrow IPC files in a temporary folder. Nothing
touches the store: the first bad line raises `InvalidRecordError` naming the file, the line
and the reason, and the reader's checksum and counts are verified when the stream ends. The
importer then loads the staged batches, so memory stays bounded by one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from memory_core.exchange.readers import ExportSource, SourceRecord
from memory_core.model.canonical import edge_from_doc, event_from_doc, memory_doc, memory_from_doc
from memory_core.model.codec import audit_to_row, edge_to_row, event_to_row, memory_to_row
from memory_core.model.errors import InvalidRecordError, MemlensError
from memory_core.model.records import AuditEntry, validate_edge, validate_event, validate_memory
from memory_core.model.schema import normalise_embedding_status
from memory_core.model.untrusted import shown
from memory_core.model.values import as_utc, content_hash
from memory_core.store import MemoryStore

BATCH_ROWS = 2048
PROGRESS_EVERY = 1024  # lines read between progress reports
#: Memory docs kept for the import's audit row (the audit keeps records whole up to 100).
PREVIEW = 101
REQUIRED = {
    "memory": ("id", "content", "memory_type", "created_at"),
    "edge": ("id", "source_id", "target_id", "relation", "created_at"),
    "audit": ("id", "at", "actor", "action"),
    "event": ("id", "at", "event_kind", "memory_id"),
}
LISTS = {"memory": ("tags",), "edge": ("evidence",), "audit": ("target_ids",), "event": ()}
Progress = Callable[[int], None]


@dataclass(frozen=True)
class VectorPolicy:
    """Which vectors of a file to keep: those of the store's model and dimension."""

    dimension: int
    keep: bool
    note: str | None = None


def vector_policy(store: MemoryStore, embedding: Mapping[str, Any] | None) -> VectorPolicy:
    """Keep file vectors unless the file says they came from another model or dimension."""
    if embedding is None:
        return VectorPolicy(store.dimension, True)
    model, dim = embedding.get("model"), embedding.get("dimension")
    if model == store.model_id and dim == store.dimension:
        return VectorPolicy(store.dimension, True)
    return VectorPolicy(store.dimension, False,
                        f"the file's vectors come from {model!r} ({dim}-d) and this store "
                        f"holds {store.model_id!r} ({store.dimension}-d): they were left "
                        f"out and the memories embedded again")


@dataclass
class ContentDedup:
    """Skips memories whose content the tenant or the file already holds under another id.

    `holder(content_hash)` names the tenant's memory with that content, if any. A skipped
    memory's id maps to the id kept (`replaced`), and staged edges are pointed at it.
    """

    holder: Callable[[str], str | None]
    seen: dict[str, str] = field(default_factory=dict)
    replaced: dict[str, str] = field(default_factory=dict)

    def kept_instead(self, memory_id: str, digest: str) -> str | None:
        """The id already holding `digest`, when it is not `memory_id`; else None (and the
        memory is remembered as the holder of its content)."""
        kept = self.seen.get(digest) or self.holder(digest)
        if kept is not None and kept != memory_id:
            self.replaced[memory_id] = kept
            return kept
        self.seen.setdefault(digest, memory_id)
        return None


@dataclass
class StagedImport:
    """What staging found and where it put it."""

    folder: Path
    schemas: dict[str, pa.Schema]
    #: Records staged by kind; `event` appears only when the input has events.
    counts: dict[str, int] = field(default_factory=lambda: {"memory": 0, "edge": 0,
                                                             "audit": 0})
    memory_ids: dict[str, int] = field(default_factory=dict)
    edge_ids: dict[str, int] = field(default_factory=dict)
    audit_ids: dict[str, int] = field(default_factory=dict)
    event_ids: dict[str, int] = field(default_factory=dict)
    #: Edge endpoints that are not memories of the file.
    outside_endpoints: set[str] = field(default_factory=set)
    vectors_kept: int = 0
    vectors_dropped: int = 0
    to_embed: int = 0
    vector_note: str | None = None
    preview: list[dict[str, Any]] = field(default_factory=list)
    #: Memories left out because their content is already held (id -> id kept).
    duplicates: dict[str, str] = field(default_factory=dict)

    def ids(self, kind: str) -> dict[str, int]:
        """Ids of the staged records of `kind`, with their lines."""
        return {"memory": self.memory_ids, "edge": self.edge_ids, "audit": self.audit_ids,
                "event": self.event_ids}[kind]

    def batches(self, kind: str) -> Iterator[pa.RecordBatch]:
        """The staged rows of `kind`, in file order."""
        path = self.folder / f"{kind}.arrow"
        if not path.exists():
            return
        with pa.OSFile(str(path), "rb") as handle:
            yield from pa.ipc.open_stream(handle)


def _check_shape(kind: str, doc: Mapping[str, Any]) -> None:
    for name in REQUIRED[kind]:
        if doc.get(name) is None:
            raise InvalidRecordError(f"the {kind} record has no {name!r}")
    for name in LISTS[kind]:
        if doc.get(name) is not None and not isinstance(doc[name], list):
            raise InvalidRecordError(f"{name} must be a list, got {doc[name]!r}")
    if doc.get("metadata") is not None and not isinstance(doc["metadata"], dict):
        raise InvalidRecordError(f"metadata must be a JSON object, got {doc['metadata']!r}")


def _vector(raw: Any, policy: VectorPolicy) -> np.ndarray | None:
    if raw is None or not policy.keep:
        return None
    if not isinstance(raw, list):
        raise InvalidRecordError("vector must be a list of numbers")
    try:
        vector = np.asarray(raw, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidRecordError("vector must be a list of numbers") from exc
    if vector.ndim != 1 or len(vector) != policy.dimension:
        return None
    if not np.isfinite(vector).all():
        raise InvalidRecordError("the vector has NaN or inf values")
    return vector


def _hash_of(content: Any) -> str:
    return content_hash(content) if isinstance(content, str) else ""


def _status(doc: Mapping[str, Any], has_vector: bool) -> str:
    given = doc.get("embedding_status")
    status = normalise_embedding_status(given) if isinstance(given, str) else None
    if has_vector:
        return status or "ok"
    return status if status in ("pending", "failed") else "pending"


class _Writer:
    """One Arrow IPC stream of staged rows of one kind, written a batch at a time."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path, self.schema = path, schema
        self.rows: list[dict[str, Any]] = []
        self.vectors: list[np.ndarray | None] = []
        self._sink: Any = None

    def add(self, row: dict[str, Any], vector: np.ndarray | None = None) -> None:
        self.rows.append(row)
        self.vectors.append(vector)
        if len(self.rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.rows:
            return
        table = pa.Table.from_pylist(self.rows, schema=self.schema)
        if "vector" in self.schema.names:
            vtype = self.schema.field("vector").type
            flat = np.zeros((len(self.rows), vtype.list_size), dtype=np.float32)
            missing = np.ones(len(self.rows), dtype=bool)
            for i, vector in enumerate(self.vectors):
                if vector is not None:
                    flat[i], missing[i] = vector, False
            column = pa.FixedSizeListArray.from_arrays(pa.array(flat.ravel()), type=vtype,
                                                       mask=pa.array(missing))
            index = self.schema.get_field_index("vector")
            table = table.set_column(index, self.schema.field("vector"), column)
        if self._sink is None:
            self._sink = pa.ipc.new_stream(str(self.path), self.schema)
        self._sink.write_table(table)
        self.rows, self.vectors = [], []

    def close(self) -> None:
        self.flush()
        if self._sink is not None:
            self._sink.close()


def _audit_row(doc: Mapping[str, Any], tenant: str) -> dict[str, Any]:
    version = doc.get("table_version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise InvalidRecordError(f"table_version must be an integer, got {version!r}")
    for name in ("actor", "action"):
        if not isinstance(doc[name], str):
            raise InvalidRecordError(f"{name} must be text, got {doc[name]!r}")
    batch_id = doc.get("batch_id")
    if batch_id is not None and not isinstance(batch_id, str):
        raise InvalidRecordError(f"batch_id must be text, got {shown(batch_id)}")
    entry = AuditEntry(
        id=str(doc["id"]), at=as_utc(doc["at"]), tenant=tenant,  # type: ignore[arg-type]
        actor=doc["actor"], action=doc["action"],
        target_ids=tuple(str(t) for t in doc.get("target_ids") or []),
        before=doc.get("before"), after=doc.get("after"), reason=doc.get("reason"),
        table_version=version, batch_id=batch_id,  # kept: `memlens undo` finds batches by it
    )
    return audit_to_row(entry)


def _seen(ids: dict[str, int], kind: str, record: SourceRecord) -> None:
    record_id = str(record.doc["id"])
    if record_id in ids:
        raise InvalidRecordError(
            f"{kind} id {record_id!r} appears twice (first on line {ids[record_id]})"
        )
    ids[record_id] = record.line


def stage(source: ExportSource, *, folder: Path, store: MemoryStore, tenant: str,
          progress: Progress | None = None, dedup: ContentDedup | None = None
          ) -> StagedImport:
    """Parse and validate every record of `source` into `folder`; see the module doc.
    `progress` is told about lines read, in steps of `PROGRESS_EVERY`; with `dedup`,
    memories whose content is already held are left out and their edges redirected."""
    policy = vector_policy(store, source.info.embedding)
    schemas = store.schemas()
    staged = StagedImport(folder, schemas, vector_note=policy.note)
    writers = {kind: _Writer(folder / f"{kind}.arrow", schema)
               for kind, schema in schemas.items()}
    try:
        for record in source.records():
            try:
                _stage_one(record, staged, writers, policy, tenant, dedup, source)
            except (MemlensError, TypeError, ValueError, KeyError, OverflowError) as exc:
                reason = str(exc) if isinstance(exc, MemlensError) else \
                    f"{type(exc).__name__}: {exc}"
                raise InvalidRecordError(
                    f"{source.info.path}: {record.place}: {reason}") from exc
            if progress is not None and record.line % PROGRESS_EVERY == 0:
                progress(PROGRESS_EVERY)
    finally:
        for writer in writers.values():
            writer.close()
    staged.outside_endpoints -= set(staged.memory_ids)
    if dedup is not None:
        staged.duplicates = dict(dedup.replaced)
    return staged


def _stage_one(record: SourceRecord, staged: StagedImport, writers: dict[str, _Writer],
               policy: VectorPolicy, tenant: str, dedup: ContentDedup | None,
               source: ExportSource) -> None:
    doc, kind = record.doc, record.kind
    _check_shape(kind, doc)
    if kind == "memory":
        if dedup is not None and not isinstance(doc["content"], str):
            raise InvalidRecordError(f"content must be text, got {doc['content']!r}")
        if dedup is not None and dedup.kept_instead(str(doc["id"]),
                                                    _hash_of(doc["content"])) is not None:
            return
        _seen(staged.memory_ids, "memory", record)
        vector = _vector(doc.get("vector"), policy)
        memory = validate_memory(memory_from_doc(
            doc, vector=None, tenant=tenant, content_hash=_hash_of(doc["content"]),
            embedding_status=_status(doc, vector is not None)))
        if vector is not None:
            staged.vectors_kept += 1
        else:
            staged.vectors_dropped += doc.get("vector") is not None
            staged.to_embed += 1
        if len(staged.preview) < PREVIEW:
            staged.preview.append(memory_doc(memory))
        writers["memory"].add(memory_to_row(memory), vector)
    elif kind == "edge":
        _seen(staged.edge_ids, "edge", record)
        moved = dedup.replaced if dedup is not None else {}
        ends = {end: moved.get(str(doc[end]), doc[end]) for end in ("source_id", "target_id")}
        if ends["source_id"] == ends["target_id"] and doc["source_id"] != doc["target_id"]:
            del staged.edge_ids[str(doc["id"])]
            source.skips.skip("edge joins a memory to its own duplicate", record.place)
            return
        edge = validate_edge(edge_from_doc(doc, tenant=tenant, **ends))
        staged.outside_endpoints.update((edge.source_id, edge.target_id))
        writers["edge"].add(edge_to_row(edge))
    elif kind == "event":
        _seen(staged.event_ids, "event", record)
        moved = dedup.replaced if dedup is not None else {}
        event = validate_event(event_from_doc(
            doc, tenant=tenant, memory_id=moved.get(str(doc["memory_id"]), doc["memory_id"])))
        writers["event"].add(event_to_row(event))
    else:
        _seen(staged.audit_ids, "audit", record)
        writers["audit"].add(_audit_row(doc, tenant))
    staged.counts[kind] = staged.counts.get(kind, 0) + 1
