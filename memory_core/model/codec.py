"""Records to Arrow and back: the tables' schemas and rows, derived from the record columns.

The only place that knows both shapes. Every conversion reads the columns off the record
dataclasses (`memory_core.model.columns`), so a new field needs no edit here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pyarrow as pa

from memory_core.model.columns import Column, Kind, columns
from memory_core.model.records import AuditEntry, Edge, Event, Memory
from memory_core.model.schema import (
    META_DIMENSION,
    META_MODEL_ID,
    META_SCHEMA_VERSION,
    SCHEMA_VERSION,
)
from memory_core.model.values import canonical_json

R = TypeVar("R", Memory, Edge, AuditEntry, Event)

_UTC_US = pa.timestamp("us", tz="UTC")
_ARROW: dict[Kind, pa.DataType] = {
    Kind.TEXT: pa.string(),
    Kind.TIME: _UTC_US,
    Kind.FLOAT32: pa.float32(),
    Kind.INT32: pa.int32(),
    Kind.INT64: pa.int64(),
    Kind.TEXTS: pa.list_(pa.string()),
    Kind.OBJECT: pa.string(),
    Kind.JSON: pa.string(),
}


def _schema(record_type: type, vector: pa.Field | None = None) -> pa.Schema:
    fields = []
    for c in columns(record_type):
        if c.kind is Kind.VECTOR:
            if vector is None:
                raise TypeError(f"{record_type.__name__} has a vector column: pass its field")
            fields.append(vector)
        else:
            fields.append(pa.field(c.name, _ARROW[c.kind], nullable=not c.required))
    return pa.schema(fields, metadata={META_SCHEMA_VERSION: str(SCHEMA_VERSION).encode()})


def vector_field(dimension: int, model_id: str) -> pa.Field:
    """The `vector` field for `dimension`-d vectors of `model_id` (both in its metadata)."""
    meta = {META_MODEL_ID: model_id.encode(), META_DIMENSION: str(dimension).encode()}
    return pa.field("vector", pa.list_(pa.float32(), dimension), metadata=meta)


def memories_schema(dimension: int, model_id: str) -> pa.Schema:
    """The Arrow schema of the `memories` table for vectors of `dimension` from `model_id`."""
    return _schema(Memory, vector_field(dimension, model_id))


def edges_schema() -> pa.Schema:
    """The Arrow schema of the `edges` table."""
    return _schema(Edge)


def audit_schema() -> pa.Schema:
    """The Arrow schema of the append-only `audit` table."""
    return _schema(AuditEntry)


def events_schema() -> pa.Schema:
    """The Arrow schema of the append-only `events` table (schema v2)."""
    return _schema(Event)


def _to_cell(kind: Kind) -> Callable[[Any], Any] | None:
    if kind is Kind.TEXTS:
        return list
    if kind is Kind.OBJECT:
        return lambda v: canonical_json(dict(v))
    if kind is Kind.JSON:
        return lambda v: None if v is None else canonical_json(v)
    if kind is Kind.VECTOR:
        return lambda v: None if v is None else list(v)
    return None


def _from_cell(c: Column) -> Callable[[Any], Any]:
    if c.kind is Kind.TEXTS:
        return lambda v: tuple(v or ())
    if c.kind is Kind.OBJECT:
        return lambda v: json.loads(v) if v else {}
    if c.kind is Kind.JSON:
        return lambda v: json.loads(v) if v else None
    if c.kind is Kind.VECTOR:
        return lambda v: None if v is None else tuple(map(float, v))
    if c.kind is Kind.FLOAT32:
        return lambda v: c.fill(None) if v is None else float(v)
    return c.fill


def to_row(record: Memory | Edge | AuditEntry | Event) -> dict[str, Any]:
    """A table row of `record` (metadata and JSON columns as canonical JSON text)."""
    row = {}
    for c in columns(type(record)):
        value = getattr(record, c.name)
        convert = _to_cell(c.kind)
        row[c.name] = convert(value) if convert is not None else value
    return row


def from_row(record_type: type[R], row: dict[str, Any]) -> R:
    """A record of `record_type` from a table row; a missing or null optional column reads
    as the field's default (a required one missing is a `KeyError`)."""
    values = {}
    for c in columns(record_type):
        raw = row[c.name] if c.required else row.get(c.name)
        values[c.name] = _from_cell(c)(raw)
    return record_type(**values)


def memory_to_row(memory: Memory) -> dict[str, Any]:
    """A `memories` row."""
    return to_row(memory)


def memory_from_row(row: dict[str, Any]) -> Memory:
    """A `Memory` from a `memories` row (a missing vector column reads as no vector)."""
    return from_row(Memory, row)


def edge_to_row(edge: Edge) -> dict[str, Any]:
    """An `edges` row."""
    return to_row(edge)


def edge_from_row(row: dict[str, Any]) -> Edge:
    """An `Edge` from an `edges` row."""
    return from_row(Edge, row)


def audit_to_row(entry: AuditEntry) -> dict[str, Any]:
    """An `audit` row (before/after as canonical JSON)."""
    return to_row(entry)


def audit_from_row(row: dict[str, Any]) -> AuditEntry:
    """An `AuditEntry` from an `audit` row (before/after parsed from JSON)."""
    return from_row(AuditEntry, row)


def event_to_row(event: Event) -> dict[str, Any]:
    """An `events` row (metadata as canonical JSON)."""
    return to_row(event)


def event_from_row(row: dict[str, Any]) -> Event:
    """An `Event` from an `events` row."""
    return from_row(Event, row)


def rows_to_table(rows: Sequence[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """An Arrow table of `rows` in `schema` (float vectors cast to float32)."""
    return pa.Table.from_pylist(list(rows), schema=schema)
