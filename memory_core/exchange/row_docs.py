"""Canonical documents of a whole Arrow chunk of rows, formatted column by column.

`canonical.memory_doc(codec.memory_from_row(row))` formats every timestamp and float32 with a
Python call per value (`iso`, `f32`): most of an export's time. Here polars formats whole
columns: timestamps as ISO-8601 UTC with microseconds only when non-zero, float32 columns as
the shortest decimal that reads back to the same float32 (polars' float32 -> string cast
writes exactly those digits). Which columns are times, floats, lists and objects is read off
the record columns (`memory_core.model.columns`). The documents are equal to `memory_doc` /
`edge_doc` of the same rows, which the tests check on generated records; years before 1000,
which polars and Python write differently, fall back to `iso`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from memory_core.model.canonical import iso
from memory_core.model.columns import Column, Kind, columns, names
from memory_core.model.records import Edge, Memory


def _formatted(chunk: pa.Table, times: tuple[str, ...], floats: tuple[str, ...]
               ) -> dict[str, list[Any]]:
    """The chunk's columns as Python lists, `times` and `floats` in canonical form."""
    import polars as pl

    frame = pl.DataFrame(chunk)
    exprs = []
    for name in times:
        column = pl.col(name)
        exprs.append(pl.when(column.dt.microsecond() == 0)
                     .then(column.dt.strftime("%Y-%m-%dT%H:%M:%SZ"))
                     .otherwise(column.dt.strftime("%Y-%m-%dT%H:%M:%S.%6fZ")).alias(name))
    exprs += [pl.col(name).cast(pl.Float32).cast(pl.String).cast(pl.Float64)
              for name in floats]
    formatted = frame.with_columns(exprs)
    out = {name: formatted[name].to_list() for name in formatted.columns}
    for name in times:
        years = frame[name].dt.year()
        if years.min() is not None and years.min() < 1000:  # type: ignore[operator]
            out[name] = [iso(v) for v in frame[name].to_list()]
    return out


def _metadata(text: str | None) -> dict[str, Any]:
    return json.loads(text) if text and text != "{}" else {}


def _cell(c: Column) -> Callable[[Any], Any]:
    """How a formatted cell becomes the document's value (nulls take the field default)."""
    if c.kind is Kind.TEXTS:
        return lambda v: v or []
    if c.kind is Kind.OBJECT:
        return _metadata
    if c.kind is Kind.JSON:
        return lambda v: json.loads(v) if v else None
    return c.fill


def _docs(kind_name: str, record_type: type, chunk: pa.Table) -> list[dict[str, Any]]:
    cols = [c for c in columns(record_type) if c.kind is not Kind.VECTOR]
    c = _formatted(chunk, names(record_type, Kind.TIME), names(record_type, Kind.FLOAT32))
    converters = [(col.name, c[col.name], _cell(col)) for col in cols]
    return [{"kind": kind_name, **{name: convert(values[i]) for name, values, convert
                                   in converters}}
            for i in range(chunk.num_rows)]


def memory_docs(chunk: pa.Table) -> list[dict[str, Any]]:
    """`memory_doc(memory_from_row(row))` of every row of a memories chunk (no vectors)."""
    return _docs("memory", Memory, chunk)


def edge_docs(chunk: pa.Table) -> list[dict[str, Any]]:
    """`edge_doc(edge_from_row(row))` of every row of an edges chunk."""
    return _docs("edge", Edge, chunk)
