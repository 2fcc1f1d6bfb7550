"""The base of every importer of a foreign memory format (`memlens import --format NAME`).

An `Adapter` is an `ExportReader` with the defaults foreign formats want: it merges into the
tenant (so a second import of the same input adds nothing: ids are kept or derived with
`stable_id`, and the importer skips content the tenant already holds), and it reports what it
leaves out in the source's `SkipLog`. The helpers here turn the usual shapes of foreign input
(a JSON document, a JSON array, NDJSON; a leading UTF-8 byte-order mark ignored) into Python
values with errors that name the file, the line or record and the reason; `memory_record` /
`edge_record` build canonical documents (docs/design/exports.md) that the importer validates and
stages.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Literal

from memory_core.exchange.readers.base import (
    TEXT_ENCODING,
    ExportReader,
    SourceRecord,
    loads,
    without_bom,
)
from memory_core.model.canonical import iso
from memory_core.model.errors import ExportFormatError
from memory_core.model.schema import normalise_importance, normalise_memory_type
from memory_core.model.stability import default_stability
from memory_core.model.values import content_hash

#: The namespace of ids memlens derives for records that have none of their own.
ID_NAMESPACE = uuid.UUID("5b3f6f0e-7a59-4c1b-9d2a-6d656d6c656e")
#: Bytes that never occur in the text formats the adapters read.
BINARY_MARKERS = (b"\x00",)


class Adapter(ExportReader):
    """An importer of a foreign memory format; see the module doc."""

    default_mode: ClassVar[Literal["empty", "merge"]] = "merge"
    dedup_content: ClassVar[bool] = True


def stable_id(format_name: str, *parts: object) -> str:
    """A uuid5 derived from the format and the parts that identify a record in it, so that
    importing the same input twice yields the same ids.

    >>> stable_id("mem0", "abc") == stable_id("mem0", "abc")
    True
    """
    key = "\x1f".join([format_name, *(str(p) for p in parts)])
    return str(uuid.uuid5(ID_NAMESPACE, key))


def check_text_file(path: Path) -> None:
    """Refuse a missing file, an empty one or a binary one, naming the file."""
    if not path.is_file():
        raise ExportFormatError(f"there is no file at {path}")
    with path.open("rb") as handle:
        head = without_bom(handle.read(8192))
    if not head.strip():
        raise ExportFormatError(f"{path} is empty")
    if any(marker in head for marker in BINARY_MARKERS):
        raise ExportFormatError(f"{path} is a binary file, not JSON or text; check the path "
                                f"and --format")


def load_json(path: Path) -> Any:
    """The JSON document in `path`; a truncated or invalid one names the line and column."""
    check_text_file(path)
    try:
        text = path.read_text(encoding=TEXT_ENCODING)
    except UnicodeDecodeError as exc:
        raise ExportFormatError(f"{path} is not UTF-8 text (byte {exc.start})") from exc
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}); "
            f"the file may be truncated"
        ) from exc


def iter_ndjson(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of an NDJSON file."""
    check_text_file(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = without_bom(raw)
            if not raw.strip():
                continue
            try:
                yield number, loads(raw)
            except UnicodeDecodeError as exc:
                raise ExportFormatError(f"{path}: line {number} is not UTF-8 text") from exc
            except json.JSONDecodeError as exc:
                raise ExportFormatError(
                    f"{path}: line {number} is not JSON ({exc.msg})"
                ) from exc


def looks_like_ndjson(path: Path) -> bool:
    """Whether the first non-blank character of `path` opens an object on a line of its own
    that parses alone (NDJSON) rather than a JSON array or one multi-line document."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = without_bom(raw)
            if raw.strip():
                try:
                    return isinstance(loads(raw), dict)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return False
    return False


def iter_json_objects(path: Path, *, key: str | None = None
                      ) -> Iterator[tuple[str, dict[str, Any]]]:
    """("line N" or "item N", object) for each object of an NDJSON file, a JSON array, or
    (with `key`) the array under `key` of a JSON document; anything else is an error."""
    if looks_like_ndjson(path):
        whole = None
        for number, value in iter_ndjson(path):
            if not isinstance(value, dict):
                raise ExportFormatError(f"{path}: line {number} is not a JSON object")
            if key is not None and key in value and number == 1:
                whole = value  # one single-line JSON document with the array inside
                break
            yield f"line {number}", value
        if whole is None:
            return
        items: Any = whole[key]
    else:
        document = load_json(path)
        items = document.get(key) if key is not None and isinstance(document, dict) \
            else document
    if not isinstance(items, list):
        where = f"the {key!r} member" if key else "the document"
        raise ExportFormatError(f"{path}: {where} is not a JSON array of records")
    for index, value in enumerate(items, start=1):
        if not isinstance(value, dict):
            raise ExportFormatError(f"{path}: item {index} is not a JSON object")
        yield f"item {index}", value


def field_of(record: Mapping[str, Any], name: str, kinds: type | tuple[type, ...], where: str,
             *, required: bool = True) -> Any:
    """`record[name]` checked against `kinds`; `ExportFormatError` naming `where` otherwise."""
    value = record.get(name)
    if value is None:
        if required:
            raise ExportFormatError(f"{where}: the record has no {name!r}")
        return None
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise ExportFormatError(f"{where}: {name!r} must not be a boolean, got {value!r}")
    if not isinstance(value, kinds):
        expected = " or ".join(k.__name__ for k in (kinds if isinstance(kinds, tuple)
                                                   else (kinds,)))
        raise ExportFormatError(
            f"{where}: {name!r} must be {expected}, got {type(value).__name__} {value!r:.60}"
        )
    return value


def timestamp(value: Any, where: str, name: str = "timestamp") -> str:
    """An ISO-8601 UTC string from an ISO string or epoch seconds (float or int)."""
    if isinstance(value, bool):
        raise ExportFormatError(f"{where}: {name} must be a time, got {value!r}")
    if isinstance(value, int | float):
        try:
            return str(iso(datetime.fromtimestamp(float(value), tz=UTC)))
        except (OverflowError, OSError, ValueError) as exc:
            raise ExportFormatError(f"{where}: {name} {value!r} is not a valid epoch") from exc
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ExportFormatError(
                f"{where}: {name} {value!r} is not an ISO-8601 time") from exc
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return str(iso(parsed))
    raise ExportFormatError(f"{where}: {name} must be a time, got {value!r}")


def memory_record(where: str, *, id: str, content: str, memory_type: str, created_at: str,
                  source: str, metadata: Mapping[str, Any] | None = None,
                  tags: Sequence[str] = (), importance: str = "normal",
                  line: int = 0, **fields: Any) -> SourceRecord:
    """A canonical memory document with memlens' defaults filled in (content hash,
    stability for its type and importance, updated_at = created_at)."""
    if not isinstance(content, str):
        raise ExportFormatError(
            f"{where}: content must be text, got {type(content).__name__} {content!r:.60}")
    kind = normalise_memory_type(memory_type)
    doc: dict[str, Any] = {
        "kind": "memory", "id": id, "content": content, "memory_type": kind,
        "created_at": created_at, "updated_at": fields.pop("updated_at", None) or created_at,
        "source": source, "tags": list(tags), "importance": importance,
        "content_hash": content_hash(content),
        "stability": default_stability(kind, normalise_importance(importance)),
        "metadata": dict(metadata or {}),
        **{k: v for k, v in fields.items() if v is not None},
    }
    return SourceRecord(line, "memory", doc, where)


def edge_record(where: str, *, id: str, source_id: str, target_id: str, relation: str,
                created_at: str, line: int = 0, **fields: Any) -> SourceRecord:
    """A canonical edge document (strength 1.0 unless given)."""
    doc: dict[str, Any] = {
        "kind": "edge", "id": id, "source_id": source_id, "target_id": target_id,
        "relation": relation, "created_at": created_at,
        **{k: v for k, v in fields.items() if v is not None},
    }
    return SourceRecord(line, "edge", doc, where)
