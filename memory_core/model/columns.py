"""The columns of each record type, read off the record dataclasses: one source of truth.

Every field of `Memory`, `Edge`, `AuditEntry` and `Event` carries its column kind in the
dataclass field's metadata (`col(...)`). The Arrow schemas and the row codec (`codec`), the
canonical JSON form (`canonical`), the column-wise export formatter (`exchange.row_docs`) and
the diff all read the columns from here, so adding a field to a record is one edit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """How a column is stored (Arrow) and written (canonical JSON)."""

    TEXT = "text"  # string
    TIME = "time"  # timestamp[us, UTC]; ISO-8601 with Z in JSON
    FLOAT32 = "float32"  # the shortest decimal that reads back as the same float32 in JSON
    INT32 = "int32"
    INT64 = "int64"
    TEXTS = "texts"  # list<string>; a tuple in the record
    OBJECT = "object"  # a JSON object, stored as canonical JSON text
    JSON = "json"  # any JSON value (or null), stored as canonical JSON text
    VECTOR = "vector"  # fixed_size_list<float32, D>; left out of exports unless asked for


_KEY = "memlens.column"


def col(kind: Kind, *, required: bool = False) -> dict[str, Any]:
    """Field metadata naming a column's kind; `required` columns are NOT NULL in Arrow."""
    return {_KEY: (kind, required)}


@dataclass(frozen=True)
class Column:
    """One column: its name, kind, whether it is required, and the field's default."""

    name: str
    kind: Kind
    required: bool
    default: Any = None
    factory: Callable[[], Any] | None = None  # the field's default_factory, if it has one

    def fill(self, value: Any) -> Any:
        """`value`, or the field's default when the stored value is null."""
        if value is not None:
            return value
        return self.factory() if self.factory is not None else self.default


_CACHE: dict[type, tuple[Column, ...]] = {}


def columns(record_type: type) -> tuple[Column, ...]:
    """The columns of a record dataclass, in table order.

    >>> from memory_core.model.records import Edge
    >>> [c.name for c in columns(Edge)][:4]
    ['id', 'tenant', 'source_id', 'target_id']
    """
    cached = _CACHE.get(record_type)
    if cached is not None:
        return cached
    out = []
    for f in dataclasses.fields(record_type):
        kind, required = f.metadata[_KEY]
        default = None if f.default is dataclasses.MISSING else f.default
        factory = None if f.default_factory is dataclasses.MISSING else f.default_factory
        out.append(Column(f.name, kind, required, default, factory))
    _CACHE[record_type] = tuple(out)
    return _CACHE[record_type]


def names(record_type: type, *kinds: Kind, exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Column names of `record_type` (only those of `kinds`, when given), minus `exclude`."""
    return tuple(c.name for c in columns(record_type)
                 if (not kinds or c.kind in kinds) and c.name not in exclude)
