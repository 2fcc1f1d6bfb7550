"""Canonical documents of a whole Arrow chunk of rows, formatted column by column.

`canonical.memory_doc(codec.memory_from_row(row))` formats every timestamp and float32 with a
Python call per value (`iso`, `f32`): most of an export's time. Here polars formats whole
columns: timestamps as ISO-8601 UTC with microseconds only when non-zero, float32 columns as
the shortest decimal that reads back to the same float32 (polars' float32 -> string cast
writes exactly those digits). The documents are equal to `memory_doc` / `edge_doc` of the
same rows, which the tests check on generated records; years before 1000, which polars and
Python write differently, fall back to `iso`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from memory_core.exchange.canonical import EDGE_FLOAT32, MEMORY_FLOAT32, iso

MEMORY_TIMES = ("created_at", "updated_at", "last_accessed_at")
EDGE_TIMES = ("created_at", "last_reinforced")


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


def memory_docs(chunk: pa.Table) -> list[dict[str, Any]]:
    """`memory_doc(memory_from_row(row))` of every row of a memories chunk (no vectors)."""
    c = _formatted(chunk, MEMORY_TIMES, MEMORY_FLOAT32)
    return [
        {
            "kind": "memory", "id": c["id"][i], "content": c["content"][i],
            "memory_type": c["memory_type"][i], "status": c["status"][i],
            "tenant": c["tenant"][i], "project": c["project"][i], "repo": c["repo"][i],
            "agent": c["agent"][i], "session_id": c["session_id"][i],
            "tags": c["tags"][i] or [], "why": c["why"][i], "source": c["source"][i],
            "created_at": c["created_at"][i], "updated_at": c["updated_at"][i],
            "content_hash": c["content_hash"][i], "importance": c["importance"][i],
            "stability": c["stability"][i], "confidence": c["confidence"][i],
            "access_count": c["access_count"][i] or 0,
            "last_accessed_at": c["last_accessed_at"][i],
            "embedding_status": c["embedding_status"][i],
            "metadata": _metadata(c["metadata"][i]),
        }
        for i in range(chunk.num_rows)
    ]


def edge_docs(chunk: pa.Table) -> list[dict[str, Any]]:
    """`edge_doc(edge_from_row(row))` of every row of an edges chunk."""
    c = _formatted(chunk, EDGE_TIMES, EDGE_FLOAT32)
    strength: Callable[[Any], Any] = lambda v: 1.0 if v is None else v  # noqa: E731
    return [
        {
            "kind": "edge", "id": c["id"][i], "tenant": c["tenant"][i],
            "source_id": c["source_id"][i], "target_id": c["target_id"][i],
            "relation": c["relation"][i], "strength": strength(c["strength"][i]),
            "evidence": c["evidence"][i] or [], "created_at": c["created_at"][i],
            "last_reinforced": c["last_reinforced"][i],
            "decay_rate": 0.0 if c["decay_rate"][i] is None else c["decay_rate"][i],
            "status": c["status"][i], "metadata": _metadata(c["metadata"][i]),
        }
        for i in range(chunk.num_rows)
    ]
