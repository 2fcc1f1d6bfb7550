"""Writing and reading memlens NDJSON exports (docs/design/exports.md).

Line 1 is the manifest (`memlens_export`, `schema_version`, `exported_at`, `tenant`,
`record_types`, `counts`, `body_sha256`, and `embedding` when vectors are included); then
memories, then edges, then events (when the file has them), then (optionally) audit rows,
each sorted by id, one canonical JSON object a line. The body is hashed as written, so two
exports of the same records have byte-identical bodies and equal `body_sha256`.

`ExportWriter` streams: lines go to a temporary body file while they are hashed, then the
manifest and the body are written to a second temporary file that is renamed over the
target, so memory stays flat and a reader never sees half a file. Both temporary files are
named by the writer's pid (`.memlens-<pid>-*.body`/`.tmp`): those of a writer that died
(killed, or a full disk) are removed by the next export to the same folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from memory_core.model.canonical import edge_doc, event_doc, iso, memory_doc
from memory_core.model.records import Edge, Event, Memory
from memory_core.model.schema import SCHEMA_VERSION
from memory_core.model.values import canonical_json
from memory_core.store.scratch import EXPORT_TMP, sweep_files

EXPORT_FORMAT = 1
KIND_ORDER = ("memory", "edge")
#: Every kind an export body may hold, in the order they are written.
ALL_KINDS = ("memory", "edge", "event", "audit")


@dataclass(frozen=True)
class Manifest:
    """The first line of an export."""

    schema_version: int
    exported_at: str
    tenant: str
    record_types: tuple[str, ...]
    counts: dict[str, int]
    body_sha256: str
    #: {"model": id, "dimension": d} of the vectors in the file; None when vectors are left out.
    embedding: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The manifest as the JSON object written on line 1."""
        out: dict[str, Any] = {
            "memlens_export": EXPORT_FORMAT,
            "schema_version": self.schema_version,
            "exported_at": self.exported_at,
            "tenant": self.tenant,
            "record_types": list(self.record_types),
            "counts": self.counts,
            "body_sha256": self.body_sha256,
        }
        if self.embedding is not None:
            out["embedding"] = dict(self.embedding)
        return out

    def to_json(self) -> str:
        return canonical_json(self.to_dict())


@dataclass(frozen=True)
class ExportFile:
    """A written export: its path, manifest and the sha256 of each kind's lines."""

    path: Path
    manifest: Manifest
    kind_sha256: Mapping[str, str] = field(default_factory=dict)


def _prefix() -> str:
    """The start of an export's temporary file names: `.memlens-<pid>-` (`EXPORT_TMP`)."""
    return f".memlens-{os.getpid()}-"


class ExportWriter:
    """Streams body lines into an export file; `commit()` writes manifest + body atomically.

    Use it as a context manager; leaving the block without `commit()` (or with an exception)
    removes the temporary files and leaves any existing file at `path` untouched.

    >>> import tempfile, pathlib, datetime
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with ExportWriter(folder / "x.ndjson", tenant="default",
    ...                   exported_at=datetime.datetime(2026, 1, 1)) as writer:
    ...     writer.write("memory", '{"id":"a","kind":"memory"}')
    ...     written = writer.commit()
    >>> written.manifest.counts
    {'memory': 1, 'edge': 0}
    """

    def __init__(
        self,
        path: Path | str,
        *,
        tenant: str,
        exported_at: datetime,
        record_types: tuple[str, ...] = KIND_ORDER,
        embedding: Mapping[str, Any] | None = None,
    ) -> None:
        unknown = [k for k in record_types if k not in ALL_KINDS]
        if unknown:
            raise ValueError(f"unknown record type(s) {unknown}; known: {', '.join(ALL_KINDS)}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tenant = tenant
        self._exported_at = exported_at
        self._record_types = tuple(k for k in ALL_KINDS if k in record_types)
        self._embedding = embedding
        self._digest = hashlib.sha256()
        self._kind_digests = {kind: hashlib.sha256() for kind in self._record_types}
        self._counts = {kind: 0 for kind in self._record_types}
        self._position = 0
        # named by this process, so the next export here can tell a dead writer's leftovers
        sweep_files(self.path.parent, EXPORT_TMP)
        fd, name = tempfile.mkstemp(dir=self.path.parent, prefix=_prefix(), suffix=".body")
        self._body_name = name
        self._body = os.fdopen(fd, "wb", buffering=1 << 20)

    def __enter__(self) -> ExportWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def write(self, kind: str, line: str) -> None:
        """Append one canonical JSON line (no newline) of `kind`; kinds come in order."""
        order = self._record_types.index(kind) if kind in self._record_types else -1
        if order < self._position:
            raise ValueError(f"a {kind!r} line cannot follow the "
                             f"{self._record_types[self._position]!r} lines of this export")
        self._position = order
        data = (line + "\n").encode("utf-8")
        self._digest.update(data)
        self._kind_digests[kind].update(data)
        self._body.write(data)
        self._counts[kind] += 1

    def write_all(self, lines: Iterable[tuple[str, str]]) -> None:
        """Append (kind, line) pairs."""
        for kind, line in lines:
            self.write(kind, line)

    def commit(self) -> ExportFile:
        """Write the manifest and the body to `path` (atomic rename) and return them."""
        self._body.close()
        manifest = Manifest(
            schema_version=SCHEMA_VERSION,
            exported_at=iso(self._exported_at) or "",
            tenant=self._tenant,
            record_types=self._record_types,
            counts=dict(self._counts),
            body_sha256=self._digest.hexdigest(),
            embedding=self._embedding,
        )
        fd, final = tempfile.mkstemp(dir=self.path.parent, prefix=_prefix(), suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out, open(self._body_name, "rb") as body:
                out.write((manifest.to_json() + "\n").encode("utf-8"))
                shutil.copyfileobj(body, out, 1 << 22)
            os.replace(final, self.path)
        finally:
            if os.path.exists(final):
                os.unlink(final)
            self.close()
        digests = {kind: d.hexdigest() for kind, d in self._kind_digests.items()}
        return ExportFile(self.path, manifest, digests)

    def close(self) -> None:
        """Remove the temporary body file (the export, if committed, stays)."""
        try:
            # on a full disk closing flushes the buffer and fails again: remove it anyway
            if not self._body.closed:
                self._body.close()
        finally:
            if os.path.exists(self._body_name):
                os.unlink(self._body_name)


def body_lines(
    memories: Iterable[Memory], edges: Iterable[Edge], *, with_vectors: bool = False,
    events: Iterable[Event] = (),
) -> Iterator[tuple[str, str]]:
    """(kind, line) pairs of an export body in canonical order (sorted in memory)."""
    for memory in sorted(memories, key=lambda m: m.id):
        yield "memory", canonical_json(memory_doc(memory, with_vector=with_vectors))
    for edge in sorted(edges, key=lambda e: e.id):
        yield "edge", canonical_json(edge_doc(edge))
    for event in sorted(events, key=lambda e: e.id):
        yield "event", canonical_json(event_doc(event))


def write_export(
    path: Path | str,
    memories: Iterable[Memory],
    edges: Iterable[Edge],
    *,
    tenant: str,
    exported_at: datetime,
    with_vectors: bool = False,
    events: Iterable[Event] | None = None,
) -> Manifest:
    """Write records held in memory as an export file (atomically) and return its manifest.

    With `events` (even none), the file has an event section after the edges (and the
    manifest counts them). To export a store, use
    `memory_core.exchange.export.export_store`, which streams.
    """
    kinds = KIND_ORDER if events is None else (*KIND_ORDER, "event")
    with ExportWriter(path, tenant=tenant, exported_at=exported_at,
                      record_types=kinds) as writer:
        writer.write_all(body_lines(memories, edges, with_vectors=with_vectors,
                                    events=events or ()))
        return writer.commit().manifest
