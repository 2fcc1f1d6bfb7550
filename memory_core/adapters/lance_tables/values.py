"""A LanceDB source row's values as memlens fields: text, times, JSON metadata, types."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memory_core.adapters.base import timestamp
from memory_core.exchange.readers.base import loads
from memory_core.model.canonical import iso
from memory_core.model.errors import ExportFormatError
from memory_core.model.schema import normalise_memory_type


def where_of(number: int, row_id: Any) -> str:
    """How errors and skips name a row."""
    return f"row {number} (id {row_id})" if row_id is not None else f"row {number}"


def text_or_none(value: Any) -> str | None:
    """A string column's value with empty strings (which many tables write for null) as None."""
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def time_of(value: Any, where: str, name: str) -> str:
    """An ISO-8601 UTC string from a timestamp, date, ISO string or epoch value."""
    if value is None:
        raise ExportFormatError(f"{where}: {name} is empty")
    if isinstance(value, datetime):
        return str(iso(value))
    if hasattr(value, "isoformat"):  # a date column
        return timestamp(value.isoformat(), where, name)
    return timestamp(value, where, name)


def json_object(value: Any, where: str, name: str = "metadata") -> dict[str, Any]:
    """A metadata value (JSON text, a struct or map, or null) as a dict."""
    if value is None:
        return {}
    if isinstance(value, list):  # a map column reads as [(key, value), ...]
        return {str(k): v for k, v in value}
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if v is not None}
    if not str(value).strip():
        return {}
    try:
        parsed = loads(value)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(
            f"{where}: {name} is not valid JSON ({exc.msg} at character {exc.pos}): "
            f"{str(value)!r:.80}") from exc
    if not isinstance(parsed, dict):
        raise ExportFormatError(
            f"{where}: {name} must be a JSON object, got {type(parsed).__name__} "
            f"{str(value)!r:.60}")
    return parsed


def memory_type_of(raw: Any, where: str, column: str = "memory_type"
                   ) -> tuple[str, str | None]:
    """(memlens memory type, the spelling found when the aliases changed it, else None)."""
    if not isinstance(raw, str) or not raw.strip():
        raise ExportFormatError(f"{where}: {column} is empty")
    kind = normalise_memory_type(raw)
    return kind, (raw if kind != raw else None)


def merge_extra(metadata: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`metadata` with the source's other columns added; a column whose name the metadata
    already uses for another value goes in as `<name>_column`, so nothing is lost."""
    for name, value in extra.items():
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        if isinstance(value, datetime):
            value = iso(value)
        if name in metadata and metadata[name] != value:
            metadata[f"{name}_column"] = value
        else:
            metadata.setdefault(name, value)
    return metadata
