"""Writing and reading memlens NDJSON exports (DESIGN.md section 5, seed 001).

Line 1 is the manifest (`memlens_export`, `schema_version`, `exported_at`, `tenant`,
`record_types`, `counts`, `body_sha256`); then memories, then edges, each sorted by id, one
canonical JSON object a line. The body is hashed as written, so two exports of the same records
have byte-identical bodies and equal `body_sha256`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.errors import ExportFormatError, SchemaVersionError
from memory_core.exchange.canonical import edge_doc, iso, memory_doc
from memory_core.records import Edge, Memory, canonical_json
from memory_core.schema import SCHEMA_VERSION

EXPORT_FORMAT = 1
KIND_ORDER = ("memory", "edge")


@dataclass(frozen=True)
class Manifest:
    """The first line of an export."""

    schema_version: int
    exported_at: str
    tenant: str
    record_types: tuple[str, ...]
    counts: dict[str, int]
    body_sha256: str

    def to_json(self) -> str:
        return canonical_json(
            {
                "memlens_export": EXPORT_FORMAT,
                "schema_version": self.schema_version,
                "exported_at": self.exported_at,
                "tenant": self.tenant,
                "record_types": list(self.record_types),
                "counts": self.counts,
                "body_sha256": self.body_sha256,
            }
        )


def body_lines(
    memories: Iterable[Memory], edges: Iterable[Edge], *, with_vectors: bool = False
) -> Iterator[tuple[str, str]]:
    """(kind, line) pairs of an export body in canonical order."""
    for memory in sorted(memories, key=lambda m: m.id):
        yield "memory", canonical_json(memory_doc(memory, with_vector=with_vectors))
    for edge in sorted(edges, key=lambda e: e.id):
        yield "edge", canonical_json(edge_doc(edge))


def write_export(
    path: Path | str,
    memories: Iterable[Memory],
    edges: Iterable[Edge],
    *,
    tenant: str,
    exported_at: datetime,
    with_vectors: bool = False,
) -> Manifest:
    """Write an export file atomically (temp file, then rename) and return its manifest."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    counts = {kind: 0 for kind in KIND_ORDER}
    fd, body_name = tempfile.mkstemp(dir=path.parent, suffix=".body")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as body:
            for kind, line in body_lines(memories, edges, with_vectors=with_vectors):
                data = line + "\n"
                digest.update(data.encode("utf-8"))
                body.write(data)
                counts[kind] += 1
        manifest = Manifest(
            schema_version=SCHEMA_VERSION,
            exported_at=iso(exported_at) or "",
            tenant=tenant,
            record_types=KIND_ORDER,
            counts=counts,
            body_sha256=digest.hexdigest(),
        )
        final = path.with_suffix(path.suffix + ".tmp")
        with final.open("w", encoding="utf-8", newline="\n") as out, open(
            body_name, encoding="utf-8"
        ) as body_in:
            out.write(manifest.to_json() + "\n")
            for line in body_in:
                out.write(line)
        os.replace(final, path)
    finally:
        if os.path.exists(body_name):
            os.unlink(body_name)
    return manifest


def _parse_manifest(line: str, path: Path) -> Manifest:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(f"{path}: line 1 is not a JSON manifest ({exc.msg})") from exc
    if not isinstance(raw, dict) or "memlens_export" not in raw:
        raise ExportFormatError(
            f"{path}: line 1 is not a memlens export manifest (no 'memlens_export' key)"
        )
    version = raw.get("schema_version")
    if not isinstance(version, int):
        raise ExportFormatError(f"{path}: the manifest has no integer schema_version")
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path} has schema_version {version}, newer than this memlens reads "
            f"({SCHEMA_VERSION}); upgrade memlens to import it"
        )
    return Manifest(
        schema_version=version,
        exported_at=str(raw.get("exported_at", "")),
        tenant=str(raw.get("tenant", "default")),
        record_types=tuple(raw.get("record_types") or KIND_ORDER),
        counts=dict(raw.get("counts") or {}),
        body_sha256=str(raw.get("body_sha256", "")),
    )


def read_export(path: Path | str) -> tuple[Manifest, list[dict[str, Any]]]:
    """The manifest and body records of an export, after checking the body's sha256 and counts.

    Raises `ExportFormatError` naming the line and the problem.
    """
    path = Path(path)
    if not path.is_file():
        raise ExportFormatError(f"there is no export file at {path}")
    digest = hashlib.sha256()
    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", newline="\n") as handle:
        first = handle.readline()
        if not first.strip():
            raise ExportFormatError(f"{path} is empty; an export starts with a manifest line")
        manifest = _parse_manifest(first, path)
        for number, line in enumerate(handle, start=2):
            digest.update(line.encode("utf-8"))
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExportFormatError(f"{path}: line {number} is not JSON ({exc.msg})") from exc
            if not isinstance(record, dict) or record.get("kind") not in KIND_ORDER:
                raise ExportFormatError(
                    f"{path}: line {number} has no known 'kind' (expected one of "
                    f"{', '.join(KIND_ORDER)})"
                )
            record["_line"] = number
            records.append(record)
    if digest.hexdigest() != manifest.body_sha256:
        raise ExportFormatError(
            f"{path}: body sha256 {digest.hexdigest()} does not match the manifest's "
            f"{manifest.body_sha256}; the file is truncated or was edited"
        )
    counted = {kind: sum(1 for r in records if r["kind"] == kind) for kind in KIND_ORDER}
    for kind, expected in manifest.counts.items():
        if counted.get(kind, 0) != expected:
            raise ExportFormatError(
                f"{path}: the manifest counts {expected} {kind} records, the file holds "
                f"{counted.get(kind, 0)}"
            )
    return manifest, records
