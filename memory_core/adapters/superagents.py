"""The `superagents` import format: superagents' `superagents_export` NDJSON files.

Line 1 is `{"superagents_export": "1", "schema_version": 1, "exported_at": ..., "agent_id":
..., "record_types": ["Fact", "Decision", "Identity"]}`; every further line is a typed memory
record such as `{"type": "Fact", "id": ..., "content": ..., "created_at": ...}`.

Mapping: Fact -> fact, Decision -> decision, Identity -> identity (other listed types go
through memlens' open vocabulary); the manifest's `agent_id` (or a record's own) -> agent;
fields memlens has keep their names; every other field goes into metadata; `source` defaults
to `import:superagents`. The format has no checksum or counts, so only the lines are checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from memory_core.adapters.base import Adapter
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    loads,
    manifest_has,
    without_bom,
)
from memory_core.model.errors import ExportFormatError, InvalidRecordError, SchemaVersionError
from memory_core.model.schema import normalise_importance, normalise_memory_type
from memory_core.model.stability import default_stability
from memory_core.model.untrusted import shown
from memory_core.model.values import content_hash

MANIFEST_KEY = "superagents_export"
#: The newest superagents export schema this reader knows (superagents' ADR-0002).
SUPERAGENTS_SCHEMA = 1
TYPE_MAP = {"Fact": "fact", "Decision": "decision", "Identity": "identity"}
#: Record fields that keep their name in memlens.
SAME_NAME = ("id", "content", "created_at", "updated_at", "tags", "project", "repo",
             "session_id", "why", "source", "importance", "confidence", "status")


def _json_object(raw: bytes, number: int, path: Path) -> dict[str, Any]:
    try:
        value = loads(raw)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(f"{path}: line {number} is not JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise ExportFormatError(f"{path}: line {number} is not UTF-8 text") from exc
    if not isinstance(value, dict):
        raise ExportFormatError(f"{path}: line {number} is not a JSON object")
    return value


def memory_doc_of(record: Mapping[str, Any], *, agent: str | None,
                  record_types: tuple[str, ...]) -> dict[str, Any]:
    """A superagents record as a canonical memlens memory document (pure)."""
    kind = record.get("type")
    if not isinstance(kind, str) or kind not in record_types:
        listed = ", ".join(record_types)
        raise InvalidRecordError(
            f"record type {kind!r} is not one of the manifest's record_types ({listed})"
        )
    memory_type = TYPE_MAP.get(kind) or normalise_memory_type(kind)
    doc: dict[str, Any] = {k: record[k] for k in SAME_NAME if k in record}
    extra = {k: v for k, v in record.items()
             if k not in SAME_NAME and k not in ("type", "agent_id", "metadata")}
    base = record.get("metadata")
    metadata = {**(base if isinstance(base, dict) else {}), **extra}
    if base is not None and not isinstance(base, dict):
        metadata["metadata"] = base
    importance = doc.get("importance") or "normal"
    content = doc.get("content")
    doc.update(
        kind="memory",
        memory_type=memory_type,
        agent=record.get("agent_id") or agent,
        source=doc.get("source") or "import:superagents",
        importance=importance,
        content_hash=content_hash(content) if isinstance(content, str) else None,
        stability=default_stability(memory_type, normalise_importance(importance)),
        metadata=metadata,
    )
    doc.setdefault("updated_at", doc.get("created_at"))
    return doc


class SuperagentsReader(Adapter):
    """Seed 001 `superagents_export` files (Fact, Decision, Identity records)."""

    name = "superagents"
    sniff_order = 10
    summary = "superagents_export NDJSON (Fact, Decision, Identity records)"
    options = frozenset({"limit"})

    def sniff(self, path: Path, first_line: str) -> bool:
        return manifest_has(first_line, MANIFEST_KEY)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        if not path.is_file():
            raise ExportFormatError(f"there is no export file at {path}")
        with path.open("rb") as handle:
            first = handle.readline()
        if not without_bom(first).strip():
            raise ExportFormatError(f"{path} is empty; it should start with a manifest line")
        head = _json_object(without_bom(first), 1, path)
        if MANIFEST_KEY not in head:
            raise ExportFormatError(f"{path}: line 1 has no {MANIFEST_KEY!r} key")
        version = head.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ExportFormatError(f"{path}: the manifest has no integer schema_version")
        if version > SUPERAGENTS_SCHEMA:
            raise SchemaVersionError(
                f"{path} is a superagents export of schema_version {version}, newer than "
                f"this memlens reads ({SUPERAGENTS_SCHEMA}); upgrade memlens to import it"
            )
        types = head.get("record_types") or list(TYPE_MAP)
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise ExportFormatError(f"{path}: the manifest's record_types is {shown(types)}; "
                                    f"it must be a list of type names like {list(TYPE_MAP)}")
        info = SourceInfo(
            format=self.name,
            path=str(path),
            schema_version=version,
            exported_at=str(head.get("exported_at", "")),
            tenant=None,
            record_types=tuple(types),
        )
        agent = head.get("agent_id") if isinstance(head.get("agent_id"), str) else None
        return ExportSource(info, lambda: self._records(path, info, agent, options.limit))

    def _records(self, path: Path, info: SourceInfo, agent: str | None, limit: int | None
                 ) -> Iterator[SourceRecord]:
        read = 0
        with path.open("rb") as handle:
            handle.readline()
            for number, raw in enumerate(handle, start=2):
                if not raw.strip():
                    continue
                if limit is not None and read >= limit:
                    return
                read += 1
                record = _json_object(raw, number, path)
                try:
                    doc = memory_doc_of(record, agent=agent, record_types=info.record_types)
                except InvalidRecordError as exc:
                    raise ExportFormatError(f"{path}: line {number}: {exc}") from exc
                yield SourceRecord(number, "memory", doc)
