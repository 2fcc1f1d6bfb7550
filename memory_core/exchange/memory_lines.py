"""Reading memories a user wrote by hand: NDJSON, one JSON object per line.

Each object needs `content`; every other field of a memory is optional (`memory_type`
defaults to observation, `id` to a new uuid4). Every line is parsed and validated before
anything is written; the first bad line stops the read with its line number and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from memory_core.exchange.readers.base import loads
from memory_core.model.errors import InvalidRecordError, MemlensError
from memory_core.model.records import Memory

_ALLOWED = {f.name for f in fields(Memory)} - {"content_hash", "embedding_status"}


def memory_from_object(obj: Any) -> Memory:
    """A new, validated `Memory` from a JSON object written by a person or another tool."""
    if not isinstance(obj, dict):
        raise InvalidRecordError(f"expected a JSON object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - _ALLOWED - {"kind"})
    if unknown:
        raise InvalidRecordError(
            f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_ALLOWED))}"
        )
    if "content" not in obj:
        raise InvalidRecordError("the object has no 'content'")
    data = {k: v for k, v in obj.items() if k != "kind" and v is not None}
    content = data.pop("content")
    memory_type = data.pop("memory_type", "observation")
    try:
        return Memory.new(content, memory_type, **data)
    except TypeError as exc:  # a field of the wrong shape, e.g. tags as a number
        raise InvalidRecordError(str(exc)) from exc


def read_memory_lines(lines: Iterable[str], *, source: str = "input") -> list[Memory]:
    """Memories from NDJSON lines; raises `InvalidRecordError` naming the line."""
    out: list[Memory] = []
    try:
        for number, line in enumerate(lines, start=1):
            if number == 1:
                line = line.removeprefix("\ufeff")  # a UTF-8 byte-order mark, read as text
            if not line.strip():
                continue
            try:
                out.append(memory_from_object(loads(line)))  # lone surrogates are not text
            except json.JSONDecodeError as exc:
                raise InvalidRecordError(
                    f"{source} line {number} is not JSON ({exc.msg})") from exc
            except MemlensError as exc:
                raise InvalidRecordError(f"{source} line {number}: {exc}") from exc
    except UnicodeDecodeError as exc:  # a text file decoded as it is read
        byte = exc.object[exc.start] if isinstance(exc.object, bytes) else 0
        raise InvalidRecordError(f"{source} is not UTF-8 text (byte {byte:#04x} after the "
                                 f"{len(out)} memories read); save it as UTF-8") from exc
    return out
