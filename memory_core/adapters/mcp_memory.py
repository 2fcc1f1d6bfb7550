"""The `mcp_memory` import format: doobidoo/mcp-memory-service's SQLite database and JSON export.

Two inputs, told apart by their first bytes:

- Its SQLite (sqlite-vec backend) database. The `memories` table holds content_hash (the
  service's identity of a memory, sha256 of the content), content, tags joined by commas,
  memory_type, metadata as JSON text, created_at / updated_at as epoch seconds and deleted_at
  for soft deletes (plus id, created_at_iso, updated_at_iso). The optional `memory_graph` table
  holds associations: source_hash, target_hash, similarity, connection_types (a JSON list),
  metadata, created_at, relationship_type. Other tables, including the sqlite-vec
  `memory_embeddings` virtual table, are never read: memlens embeds with its own model. The
  database is opened read-only.
- Its JSON export (`{"export_metadata": {...}, "memories": [{content, content_hash, tags,
  created_at, updated_at, memory_type, metadata, export_source}]}`), as its sync exporter writes
  it; tags are a list there, or a comma-joined string in older files.

Mapping: id = `stable_id("mcp_memory", content_hash)`, so the database and its export give the
same ids; their content_hash is kept in metadata as `mcp_content_hash`; tags split on commas
and trimmed; memory_type as given (`note` when empty); metadata kept; every other column or
field into metadata under its name (`mcp_` in front when the name is taken), except
created_at_iso / updated_at_iso (the epochs say the same), `embedding` and BLOB columns
(another model's vectors). A soft-deleted memory (deleted_at set) arrives archived,
deleted_at in metadata.
Graph rows become edges between the memories of their hashes: related -> relates_to, causes ->
caused, fixes -> improves, supports -> supports, contradicts -> contradicts, follows and
unknown types -> relates_to (types memlens knows, e.g. supersedes, keep theirs); similarity ->
strength; the service's type and connection_types go into the edge's metadata. The service
stores its symmetric relations (related, contradicts) both ways; the second direction is
skipped. Edges to a hash that is not a memory of the file are skipped with the reason.

Params: `--param deleted=archive|skip` (default archive: soft-deleted memories arrive
archived; skip leaves them out). `--limit N` reads at most N memories (rows or items).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from memory_core.adapters.base import (
    Adapter,
    edge_record,
    field_of,
    load_json,
    memory_record,
    stable_id,
    timestamp,
)
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
    loads,
    read_head,
)
from memory_core.model.errors import ExportFormatError, InvalidRecordError
from memory_core.model.schema import normalise_relation

NAME = "mcp_memory"
SQLITE_MAGIC = b"SQLite format 3\x00"
SNIFF_BYTES = 1 << 16
#: Fields read into memlens columns (or left out on purpose); the rest goes into metadata.
MAPPED = frozenset({"content_hash", "content", "tags", "memory_type", "metadata", "created_at",
                    "updated_at", "created_at_iso", "updated_at_iso", "deleted_at", "embedding"})
#: The service's relationship types (its ontology) -> memlens relations.
RELATIONS = {"related": "relates_to", "causes": "caused", "fixes": "improves",
             "supports": "supports", "contradicts": "contradicts", "follows": "relates_to"}
#: Types the service stores in both directions (A -> B and B -> A).
SYMMETRIC = frozenset({"related", "contradicts"})
DELETED_MODES = ("archive", "skip")


def _metadata_of(value: Any, at: str, name: str = "metadata") -> dict[str, Any]:
    """A JSON object from a JSON text column (SQLite) or an object (JSON export)."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = loads(value)
        except json.JSONDecodeError as exc:
            raise ExportFormatError(
                f"{at}: {name} is not valid JSON ({exc.msg}, column {exc.colno}): {value!r:.60}"
            ) from exc
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ExportFormatError(
            f"{at}: {name} must be a JSON object, got {type(value).__name__} {value!r:.60}")
    return value


def _tags(value: Any, at: str) -> list[str]:
    """Tags from a list or a comma-joined string (a JSON array string is read as a list)."""
    if value is None:
        return []
    items: list[Any]
    if isinstance(value, str):
        items = value.split(",")
        if value.lstrip().startswith("["):
            try:
                parsed = loads(value)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, list):
                items = parsed
    elif isinstance(value, list):
        items = value
    else:
        raise ExportFormatError(f"{at}: tags must be a list or a comma-joined string, got "
                                f"{type(value).__name__} {value!r:.60}")
    tags: list[str] = []
    for tag in items:
        if not isinstance(tag, str):
            raise ExportFormatError(f"{at}: tags must be text, got {tag!r:.60}")
        if tag.strip() and tag.strip() not in tags:
            tags.append(tag.strip())
    return tags


def merge_extra(metadata: dict[str, Any], extra: Mapping[str, Any], prefix: str) -> None:
    """Put `extra` into `metadata`, `prefix` in front of names the metadata already uses."""
    for key, value in extra.items():
        metadata[f"{prefix}{key}" if key in metadata else key] = value


def memory_of(row: Mapping[str, Any], place: str, at: str, *, deleted: str,
              extra: Mapping[str, Any]) -> SourceRecord | str:
    """One memory (a table row or an export item) as a canonical record, or the reason it
    is left out. `place` names it in the report, `at` (file and place) in errors."""
    digest = field_of(row, "content_hash", str, at)
    if not digest.strip():
        raise ExportFormatError(f"{at}: content_hash is empty")
    content = field_of(row, "content", str, at)
    if not content.strip():
        return "empty content"
    created = row.get("created_at")
    created = row.get("created_at_iso") if created is None else created
    if created is None:
        raise ExportFormatError(f"{at}: the record has no 'created_at'")
    updated = row.get("updated_at")
    updated = row.get("updated_at_iso") if updated is None else updated
    kind = field_of(row, "memory_type", str, at, required=False) or ""
    metadata = dict(_metadata_of(row.get("metadata"), at))
    merge_extra(metadata, {"mcp_content_hash": digest, **extra,
                           **{k: v for k, v in row.items()
                              if k not in MAPPED and not isinstance(v, bytes)}}, "mcp_")
    status = "active"
    if row.get("deleted_at") is not None:
        if deleted == "skip":
            return "soft-deleted (deleted_at set; --param deleted=skip)"
        status = "archived"
        metadata["deleted_at"] = timestamp(row["deleted_at"], at, "deleted_at")
    return memory_record(
        place, id=stable_id(NAME, digest), content=content,
        memory_type=kind.strip() or "note", created_at=timestamp(created, at, "created_at"),
        updated_at=None if updated is None else timestamp(updated, at, "updated_at"),
        source=f"import:{NAME}", tags=_tags(row.get("tags"), at), metadata=metadata,
        status=status)


def relation_of(kind: str) -> tuple[str, bool]:
    """The memlens relation of a service relationship type, and whether to swap its ends."""
    if kind in RELATIONS:
        return RELATIONS[kind], False
    try:
        return normalise_relation(kind)
    except InvalidRecordError:
        return "relates_to", False


def _connect(path: Path) -> sqlite3.Connection:
    """The database at `path`, read-only (its -wal file is read, nothing is written)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _rows(conn: sqlite3.Connection, table: str) -> Iterator[tuple[int, dict[str, Any]]]:
    cursor = conn.execute(f"SELECT rowid AS memlens_rowid, * FROM {table} ORDER BY rowid")
    names = [d[0] for d in cursor.description]
    for values in cursor:
        row = dict(zip(names, values, strict=True))
        yield int(row.pop("memlens_rowid")), row


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


class McpMemoryAdapter(Adapter):
    """doobidoo/mcp-memory-service: its SQLite database or its JSON export."""

    name = NAME
    sniff_order = 40
    summary = ("mcp-memory-service SQLite database (memories, memory_graph) or its JSON "
               "export ({export_metadata, memories})")
    options = frozenset({"limit"})
    params = ("deleted",)

    def sniff(self, path: Path, first_line: str) -> bool:
        if not path.is_file():
            return False
        try:
            if _is_sqlite(path):
                with closing(_connect(path)) as conn:
                    return {"content_hash", "content"} <= set(_columns(conn, "memories"))
            head = read_head(path, SNIFF_BYTES)
        except (OSError, sqlite3.Error):
            return False
        return (head.lstrip().startswith("{")
                and re.search(r'"export_metadata"\s*:\s*\{', head) is not None
                and re.search(r'"memories"\s*:\s*\[', head) is not None)

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        deleted = options.param("deleted", "archive") or "archive"
        if deleted not in DELETED_MODES:
            raise ExportFormatError(f"--param deleted={deleted} is not one of "
                                    f"{', '.join(DELETED_MODES)}")
        if path.is_file() and _is_sqlite(path):
            return self._open_sqlite(path, options.limit, deleted)
        return self._open_export(path, options.limit, deleted)

    # -- the SQLite database -------------------------------------------------------------

    def _open_sqlite(self, path: Path, limit: int | None, deleted: str) -> ExportSource:
        try:
            with closing(_connect(path)) as conn:
                columns = set(_columns(conn, "memories"))
                graph = set(_columns(conn, "memory_graph"))
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # text that is not UTF-8
            raise ExportFormatError(f"{path}: cannot read the SQLite database ({exc})") from exc
        if not columns:
            raise ExportFormatError(f"{path} is a SQLite database without a 'memories' table; "
                                    f"it is not an mcp-memory-service database")
        for needed, have, table in ((("content_hash", "content"), columns, "memories"),
                                    (("source_hash", "target_hash"), graph, "memory_graph")):
            missing = [c for c in needed if have and c not in have]
            if missing:
                raise ExportFormatError(f"{path}: the {table} table has no {missing[0]!r} "
                                        f"column; it is not an mcp-memory-service database")
        info = SourceInfo(format=NAME, path=str(path), schema_version=1,
                          record_types=("memory", "edge") if graph else ("memory",))
        source = ExportSource(info, lambda: self._sqlite_records(
            path, source, limit, deleted, bool(graph)))
        return source

    def _sqlite_records(self, path: Path, source: ExportSource, limit: int | None,
                        deleted: str, has_graph: bool) -> Iterator[SourceRecord]:
        created: dict[str, str] = {}
        left_out: set[str] = set()
        limited = False
        try:
            with closing(_connect(path)) as conn:
                for read, (rowid, row) in enumerate(_rows(conn, "memories")):
                    if limit is not None and read >= limit:
                        limited = True
                        break
                    place = f"memories row {rowid}"
                    at = f"{path}: {place}"
                    if row.get("id") == rowid:  # the INTEGER PRIMARY KEY is the rowid
                        del row["id"]
                    record = memory_of(row, place, at, deleted=deleted, extra={"row_id": rowid})
                    if isinstance(record, str):
                        source.skips.skip(record, place)
                        left_out.add(row["content_hash"])
                        continue
                    created[row["content_hash"]] = record.doc["created_at"]
                    yield record
                if has_graph:
                    yield from self._edges(path, conn, source, created, left_out, limited)
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # text that is not UTF-8
            raise ExportFormatError(f"{path}: cannot read the SQLite database ({exc})") from exc

    def _edges(self, path: Path, conn: sqlite3.Connection, source: ExportSource,
               created: Mapping[str, str], left_out: set[str], limited: bool
               ) -> Iterator[SourceRecord]:
        seen: set[tuple[str, str, str]] = set()
        for rowid, row in _rows(conn, "memory_graph"):
            place = f"memory_graph row {rowid}"
            at = f"{path}: {place}"
            ends = [field_of(row, name, str, at) for name in ("source_hash", "target_hash")]
            kind = field_of(row, "relationship_type", str, at, required=False) or "related"
            outside = [h for h in ends if h not in created]
            if outside:
                reason = ("edge endpoint is a memory left out" if outside[0] in left_out
                          else "edge endpoint not read (beyond --limit)" if limited
                          else "edge endpoint is not a memory of the database")
                source.skips.skip(reason, f"{place} ({outside[0][:12]})")
                continue
            if kind in SYMMETRIC and (ends[1], ends[0], kind) in seen:
                source.skips.skip(f"reverse direction of a symmetric '{kind}' edge", place)
                continue
            seen.add((ends[0], ends[1], kind))
            similarity = field_of(row, "similarity", (int, float), at, required=False)
            if similarity is not None and not 0.0 <= similarity <= 1.0:
                raise ExportFormatError(f"{at}: similarity {similarity} is not in 0..1")
            types = row.get("connection_types")
            if isinstance(types, str):
                try:
                    types = loads(types) if types.strip() else []
                except json.JSONDecodeError as exc:
                    raise ExportFormatError(f"{at}: connection_types is not valid JSON "
                                            f"({exc.msg}): {types!r:.60}") from exc
            if types is not None and not isinstance(types, list):
                raise ExportFormatError(
                    f"{at}: connection_types must be a JSON list, got {types!r:.60}")
            metadata = {"relationship_type": kind, "connection_types": types or []}
            merge_extra(metadata, _metadata_of(row.get("metadata"), at), "mcp_")
            relation, swap = relation_of(kind)
            first, second = (ends[1], ends[0]) if swap else (ends[0], ends[1])
            when = row.get("created_at")
            yield edge_record(
                place, id=stable_id(NAME, "edge", ends[0], ends[1], kind),
                source_id=stable_id(NAME, first), target_id=stable_id(NAME, second),
                relation=relation, strength=similarity, metadata=metadata,
                created_at=created[ends[0]] if when is None else timestamp(when, at,
                                                                          "created_at"))

    # -- the JSON export -----------------------------------------------------------------

    def _open_export(self, path: Path, limit: int | None, deleted: str) -> ExportSource:
        document = load_json(path)
        if not isinstance(document, dict) or not isinstance(document.get("memories"), list):
            raise ExportFormatError(f"{path}: an mcp-memory-service export is a JSON object "
                                    f"with a 'memories' array (and 'export_metadata')")
        head = document.get("export_metadata")
        head = head if isinstance(head, dict) else {}
        info = SourceInfo(format=NAME, path=str(path), schema_version=1,
                          exported_at=str(head.get("export_timestamp") or ""),
                          record_types=("memory",))
        machine = head.get("source_machine")
        extra = {"source_machine": machine} if isinstance(machine, str) else {}
        items: list[Any] = document["memories"]
        source = ExportSource(info, lambda: self._export_records(
            path, items, source, limit, deleted, extra))
        return source

    def _export_records(self, path: Path, items: list[Any], source: ExportSource,
                        limit: int | None, deleted: str, extra: Mapping[str, Any]
                        ) -> Iterator[SourceRecord]:
        for index, item in enumerate(items[:limit] if limit is not None else items, start=1):
            place = f"item {index}"
            at = f"{path}: {place}"
            if not isinstance(item, dict):
                raise ExportFormatError(f"{at} is not a JSON object")
            record = memory_of(item, place, at, deleted=deleted, extra=extra)
            if isinstance(record, str):
                source.skips.skip(record, place)
                continue
            yield record
