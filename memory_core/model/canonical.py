"""The canonical JSON form of records (docs/design/exports.md), shared by exports and the audit.

Canonical means: keys sorted, no spaces, unicode kept, timestamps ISO-8601 UTC with a `Z`
(microseconds only when non-zero), float32 columns written as the shortest decimal that reads
back to the same float32, metadata as a JSON object. Equal records give equal bytes. The
fields come from the record columns (`memory_core.model.columns`): a document is `kind` plus one key
per column (vectors only when asked for).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import numpy as np

from memory_core.model.columns import Column, Kind, columns
from memory_core.model.records import AuditEntry, Edge, Event, Memory
from memory_core.model.schema import DEFAULT_TENANT
from memory_core.model.values import as_utc


def iso(value: datetime | None) -> str | None:
    """ISO-8601 UTC with `Z`; microseconds only when non-zero.

    >>> from datetime import UTC, datetime
    >>> iso(datetime(2026, 5, 1, 9, 30, tzinfo=UTC))
    '2026-05-01T09:30:00Z'
    """
    utc = as_utc(value)
    if utc is None:
        return None
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    if utc.microsecond:
        text += f".{utc.microsecond:06d}"
    return text + "Z"


def f32(value: float | None) -> float | None:
    """The shortest decimal that reads back as the same float32.

    >>> f32(0.8500000238418579)
    0.85
    """
    if value is None:
        return None
    return float(str(np.float32(value)))


def _to_json(kind: Kind) -> Callable[[Any], Any]:
    if kind is Kind.TIME:
        return iso
    if kind is Kind.FLOAT32:
        return f32
    if kind is Kind.TEXTS:
        return list
    if kind is Kind.OBJECT:
        return dict
    if kind is Kind.VECTOR:
        return lambda v: None if v is None else [f32(x) for x in v]
    return lambda v: v


def _doc(kind_name: str, record: Memory | Edge | AuditEntry | Event, with_vector: bool
         ) -> dict[str, Any]:
    doc: dict[str, Any] = {"kind": kind_name}
    for c in columns(type(record)):
        if c.kind is Kind.VECTOR and not with_vector:
            continue
        doc[c.name] = _to_json(c.kind)(getattr(record, c.name))
    return doc


def memory_doc(memory: Memory, *, with_vector: bool = False) -> dict[str, Any]:
    """A memory as its canonical JSON object (`kind` = "memory")."""
    return _doc("memory", memory, with_vector)


def edge_doc(edge: Edge) -> dict[str, Any]:
    """An edge as its canonical JSON object (`kind` = "edge")."""
    return _doc("edge", edge, False)


def audit_doc(entry: AuditEntry) -> dict[str, Any]:
    """An audit row as its canonical JSON object (`kind` = "audit"); before/after as JSON."""
    return _doc("audit", entry, False)


def event_doc(event: Event) -> dict[str, Any]:
    """An event as its canonical JSON object (`kind` = "event"; recall/cite/correct is its
    `event_kind`)."""
    return _doc("event", event, False)


def _from_json(c: Column, value: Any) -> Any:
    if value is None:
        return c.fill(None)  # an absent optional field takes the record's default
    if c.kind is Kind.TIME:
        return as_utc(value)
    if c.kind is Kind.TEXTS or c.kind is Kind.VECTOR:
        return tuple(value)
    if c.kind is Kind.OBJECT:
        return dict(value)
    if c.kind is Kind.FLOAT32:
        return float(value)
    if c.kind in (Kind.INT32, Kind.INT64):
        return int(value)
    return value


def _fields_from_doc(record_type: type, doc: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for c in columns(record_type):
        required = c.required and c.default is None and c.factory is None
        value = doc[c.name] if required else doc.get(c.name)
        fields[c.name] = _from_json(c, value)
    return fields


def memory_from_doc(doc: Mapping[str, Any], **overrides: Any) -> Memory:
    """A `Memory` from its canonical JSON object (unvalidated; the store validates), with
    `overrides` (e.g. tenant) in place of the document's fields.

    The embedding status follows the vector: a document without one is pending. A missing
    `updated_at` is the creation time; a missing content hash is computed on validation.
    """
    doc = {**doc, "updated_at": doc.get("updated_at") or doc["created_at"],
           "content_hash": doc.get("content_hash") or ""}
    fields = _fields_from_doc(Memory, doc)
    fields["tenant"] = fields["tenant"] or DEFAULT_TENANT
    fields["embedding_status"] = "ok" if fields["vector"] is not None else "pending"
    fields.update(overrides)
    return Memory(**fields)


def event_from_doc(doc: Mapping[str, Any], **overrides: Any) -> Event:
    """An `Event` from its canonical JSON object (unvalidated), with `overrides`."""
    fields = _fields_from_doc(Event, doc)
    fields["tenant"] = fields["tenant"] or DEFAULT_TENANT
    fields.update(overrides)
    return Event(**fields)


def edge_from_doc(doc: Mapping[str, Any], **overrides: Any) -> Edge:
    """An `Edge` from its canonical JSON object (unvalidated), with `overrides`."""
    fields = _fields_from_doc(Edge, doc)
    fields["tenant"] = fields["tenant"] or DEFAULT_TENANT
    fields.update(overrides)
    return Edge(**fields)
