"""Helpers shared by the adapters of conversational-memory benchmarks (`locomo`, `longmemeval`).

Benchmark files are one JSON array of large items (LongMemEval's is 277 MB), so
`iter_json_array` streams the items one at a time instead of loading the document, and
`array_head` lets `sniff` look at the first few KB only. `query_line` builds the query-set
lines (docs/design/evaluation.md) the adapters append to `ExportSource.queries`; `choice_param`
reads a `--param KEY=VALUE` setting with an error that lists what is allowed.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.adapters.base import check_text_file
from memory_core.exchange.readers.base import (
    LONE_SURROGATE,
    TOO_DEEP,
    ReadOptions,
    has_lone_surrogate,
)
from memory_core.model.canonical import iso
from memory_core.model.errors import ExportFormatError

#: How much of a file `sniff` reads.
HEAD_BYTES = 8192
CHUNK_BYTES = 1 << 20
_WHITESPACE = " \t\r\n"


def array_head(path: Path, size: int = HEAD_BYTES) -> str | None:
    """The first `size` bytes of `path` as text when they open a JSON array, else None
    (folders, unreadable files and other shapes included: sniffing never raises)."""
    if not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            raw = handle.read(size)
    except OSError:
        return None
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff" + _WHITESPACE)
    return text if text.startswith("[") else None


class _Buffer:
    """Text decoded from a file a chunk at a time, with the line count of what was dropped."""

    def __init__(self, handle: Any, path: Path) -> None:
        self.handle, self.path = handle, path
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text, self.pos, self.lines_before, self.eof = "", 0, 0, False

    def fill(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self.eof:
            return False
        chunk = self.handle.read(CHUNK_BYTES)
        try:
            self.text += self.decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise ExportFormatError(f"{self.path} is not UTF-8 text") from exc
        self.eof = not chunk
        return bool(chunk)

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end), not consumed."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.text) or not self.fill():
                return self.text[self.pos:self.pos + 1]

    def drop_consumed(self) -> None:
        self.lines_before += self.text.count("\n", 0, self.pos)
        self.text, self.pos = self.text[self.pos:], 0

    def line_at(self, pos: int) -> int:
        return self.lines_before + self.text.count("\n", 0, pos) + 1


def iter_json_array(path: Path, noun: str = "records") -> Iterator[tuple[int, Any]]:
    """(item number from 1, value) for each item of the JSON array in `path`, streamed.

    A file that is not an array, a truncated one or a syntax error raises `ExportFormatError`
    naming the item and the line; `noun` says what the array should hold.
    """
    check_text_file(path)
    decoder = json.JSONDecoder()
    with path.open("rb") as handle:
        buf = _Buffer(handle, path)
        buf.fill()
        if buf.text.startswith("\ufeff"):
            buf.text = buf.text[1:]
        if buf.peek() != "[":
            raise ExportFormatError(f"{path} is not a JSON array of {noun}")
        buf.pos += 1
        number = 0
        while True:
            char = buf.peek()
            if char == "]":
                buf.pos += 1
                if buf.peek():
                    raise ExportFormatError(
                        f"{path}: line {buf.line_at(buf.pos)}: text after the end of the array")
                return
            if number:
                if char != ",":
                    raise ExportFormatError(
                        f"{path}: line {buf.line_at(buf.pos)}: expected ',' or ']' after "
                        f"item {number}" + (" (the file is truncated)" if not char else ""))
                buf.pos += 1
                buf.peek()
            number += 1
            yield number, _decode_item(decoder, buf, number)
            buf.drop_consumed()


def _decode_item(decoder: json.JSONDecoder, buf: _Buffer, number: int) -> Any:
    while True:
        try:
            value, end = decoder.raw_decode(buf.text, buf.pos)
        except json.JSONDecodeError as exc:
            if buf.fill():
                continue
            raise ExportFormatError(
                f"{buf.path}: item {number}: invalid JSON at line {buf.line_at(exc.pos)} "
                f"({exc.msg}); the file may be truncated") from exc
        except RecursionError as exc:
            raise ExportFormatError(f"{buf.path}: item {number}: invalid JSON at line "
                                    f"{buf.line_at(buf.pos)} ({TOO_DEEP})") from exc
        # a scalar ending at the buffer's end may continue in the next chunk
        if end == len(buf.text) and not isinstance(value, dict | list) and buf.fill():
            continue
        if has_lone_surrogate(value, buf.text, buf.pos, end):
            raise ExportFormatError(f"{buf.path}: item {number}: invalid JSON at line "
                                    f"{buf.line_at(buf.pos)} ({LONE_SURROGATE})")
        buf.pos = end
        return value


def choice_param(options: ReadOptions, key: str, choices: Iterable[str], default: str) -> str:
    """The `--param key=...` value, which must be one of `choices`."""
    allowed = tuple(choices)
    value = (options.param(key) or default).strip().lower()
    if value not in allowed:
        raise ExportFormatError(
            f"--param {key}={value!r} is not allowed; use one of: {', '.join(allowed)}")
    return value


def iso_at(moment: datetime) -> str:
    """ISO-8601 UTC text of a datetime (naive ones are taken as UTC)."""
    return str(iso(moment))


def query_line(qid: str, query: str, relevant: Mapping[str, int], filter: Mapping[str, Any],
               tags: Iterable[str], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One query-set line (docs/design/evaluation.md); `extra` keys (the benchmark's answer) are
    added only when asked for, since `memlens eval` reads the five keys of the schema only."""
    return {"qid": qid, "query": query, "relevant": dict(relevant), "filter": dict(filter),
            "tags": list(tags), **(extra or {})}
