"""The `memlens` import format: memlens NDJSON exports of any schema version this one reads.

Line 1 is the manifest; a newer export format (`memlens_export`) or `schema_version` is
refused naming both versions, an older schema is migrated record by record through
`migrations.MIGRATIONS`. A leading UTF-8 byte-order mark is ignored. The body is hashed as it is
read (bytes as written), and its sha256 and per-kind counts are checked against the manifest
when the stream ends, so a truncated or edited file fails before the importer writes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from memory_core.exchange.migrations import MIGRATIONS, MigrationChain
from memory_core.exchange.ndjson import ALL_KINDS, EXPORT_FORMAT, Manifest
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportReader,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    loads,
    manifest_has,
    without_bom,
)
from memory_core.model.errors import ExportFormatError, SchemaVersionError
from memory_core.model.schema import SCHEMA_VERSION
from memory_core.model.untrusted import shown

MANIFEST_KEY = "memlens_export"


def parse_manifest_line(raw: bytes | str, path: Path) -> dict[str, Any]:
    """Line 1 of a memlens export as a dict; `ExportFormatError` / `SchemaVersionError`."""
    raw = raw.removeprefix("\ufeff") if isinstance(raw, str) else without_bom(raw)
    if not raw.strip():
        raise ExportFormatError(f"{path} is empty; an export starts with a manifest line")
    try:
        head = loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise ExportFormatError(f"{path}: line 1 is not a JSON manifest ({reason})") from exc
    if not isinstance(head, dict) or MANIFEST_KEY not in head:
        raise ExportFormatError(
            f"{path}: line 1 is not a memlens export manifest (no {MANIFEST_KEY!r} key)"
        )
    _check_export_format(head[MANIFEST_KEY], path)
    version = head.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ExportFormatError(f"{path}: the manifest has no integer schema_version")
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path} has schema_version {version}, newer than this memlens reads "
            f"({SCHEMA_VERSION}); upgrade memlens to import it"
        )
    return head


def _check_export_format(version: Any, path: Path) -> None:
    """Refuse an export format (the manifest's `memlens_export`) this memlens cannot read:
    a newer one names both versions; anything but a positive integer is malformed. Checked
    before `schema_version`, since a newer format may lay its manifest out differently."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ExportFormatError(
            f"{path}: the manifest's {MANIFEST_KEY!r} is {shown(version)}; it must be the "
            f"export format version, a positive integer ({EXPORT_FORMAT} for this memlens)"
        )
    if version > EXPORT_FORMAT:
        raise SchemaVersionError(
            f"{path} is a memlens export of format version {version}, newer than this "
            f"memlens reads ({EXPORT_FORMAT}); upgrade memlens to import it"
        )


def _decode(raw: bytes, number: int, path: Path) -> dict[str, Any]:
    if not raw.endswith(b"\n"):
        raise ExportFormatError(
            f"{path}: line {number} is incomplete (no line end); the file is truncated"
        )
    try:
        record = loads(raw)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(f"{path}: line {number} is not JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise ExportFormatError(f"{path}: line {number} is not UTF-8 text") from exc
    if not isinstance(record, dict):
        raise ExportFormatError(
            f"{path}: line {number} is not a JSON object (got {type(record).__name__})"
        )
    return record


def _manifest_counts(counts: Any, path: Path) -> dict[str, int]:
    """The manifest's `counts`: {kind: a whole number >= 0}; `ExportFormatError` otherwise."""
    if counts is None:
        return {}
    if not isinstance(counts, Mapping) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts.values()):
        raise ExportFormatError(f"{path}: the manifest's counts is {shown(counts)}; it must "
                                f"map each record kind to a whole number of lines")
    return {str(k): int(v) for k, v in counts.items()}


class MemlensReader(ExportReader):
    """memlens exports (`{"memlens_export": 1, ...}` manifests), schema v0 onwards."""

    name = "memlens"
    sniff_order = 0
    summary = "memlens NDJSON exports (any schema version, migrated)"

    def sniff(self, path: Path, first_line: str) -> bool:
        return manifest_has(first_line, MANIFEST_KEY)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        if not path.is_file():
            raise ExportFormatError(f"there is no export file at {path}")
        with path.open("rb") as handle:
            raw = parse_manifest_line(handle.readline(), path)
        chain = MIGRATIONS.chain(raw["schema_version"], SCHEMA_VERSION)
        head = chain.manifest(raw)
        counts = _manifest_counts(head.get("counts"), path)
        types = head.get("record_types") or ("memory", "edge")
        if not isinstance(types, list | tuple) or not all(isinstance(t, str) for t in types):
            raise ExportFormatError(f"{path}: the manifest's record_types is {shown(types)}; "
                                    f"it must be a list of record kinds")
        tenant = head.get("tenant")
        if tenant is not None and not isinstance(tenant, str):
            raise ExportFormatError(f"{path}: the manifest's tenant is {shown(tenant)}; it "
                                    f"must be text")
        embedding = head.get("embedding")
        info = SourceInfo(
            format=self.name,
            path=str(path),
            schema_version=int(raw["schema_version"]),
            exported_at=str(head.get("exported_at", "")),
            tenant=tenant,
            record_types=tuple(types),
            counts=counts,
            body_sha256=str(head.get("body_sha256") or ""),
            embedding=embedding if isinstance(embedding, Mapping) else None,
            migrations=chain.names,
        )
        return ExportSource(info, lambda: self._records(path, info, chain))

    def _records(self, path: Path, info: SourceInfo, chain: MigrationChain
                 ) -> Iterator[SourceRecord]:
        digest = hashlib.sha256()
        counted = dict.fromkeys(ALL_KINDS, 0)
        with path.open("rb") as handle:
            handle.readline()
            for number, raw in enumerate(handle, start=2):
                digest.update(raw)
                doc = chain.record(_decode(raw, number, path)) if chain.steps else \
                    _decode(raw, number, path)
                kind = doc.get("kind")
                if kind not in ALL_KINDS:
                    raise ExportFormatError(
                        f"{path}: line {number} has no known 'kind' (expected one of "
                        f"{', '.join(ALL_KINDS)})"
                    )
                counted[kind] += 1
                yield SourceRecord(number, kind, doc)
        if digest.hexdigest() != info.body_sha256:
            raise ExportFormatError(
                f"{path}: body sha256 {digest.hexdigest()} does not match the manifest's "
                f"{info.body_sha256 or '(none)'}; the file is truncated or was edited"
            )
        for kind, expected in info.counts.items():
            if counted.get(kind, 0) != expected:
                raise ExportFormatError(
                    f"{path}: the manifest counts {expected} {kind} records, the file holds "
                    f"{counted.get(kind, 0)}"
                )


def read_export(path: Path | str) -> tuple[Manifest, list[dict[str, Any]]]:
    """The manifest and body records of a memlens export, after checking its sha256 and
    counts; older schema versions are migrated. Each record carries its `_line` number.

    Raises `ExportFormatError` naming the line and the problem, `SchemaVersionError` for a
    newer schema. Holds every record in memory; imports stream instead.
    """
    source = MemlensReader().open(Path(path))
    records = []
    for record in source.records():
        records.append({**record.doc, "_line": record.line})
    info = source.info
    manifest = Manifest(
        schema_version=info.schema_version,
        exported_at=info.exported_at,
        tenant=info.tenant or "default",
        record_types=tuple(info.record_types),
        counts=dict(info.counts),
        body_sha256=info.body_sha256 or "",
        embedding=info.embedding,
    )
    return manifest, records
