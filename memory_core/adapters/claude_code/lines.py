"""Reading the lines of a Claude Code transcript file: one JSON object a line, checked.

`iter_lines` yields (line number, object) and raises `ExportFormatError` for a binary file,
a line that is not UTF-8, not JSON or not an object; a last line without its newline that
does not parse is what a live transcript looks like while Claude Code writes it, so it is
skipped with a reason instead. `required_text` and `blocks_of` read a line's fields with
errors that name the file and line. `peek` and `looks_like_transcript_line` look at a file
without reading it all (to match subagents to sessions and to recognise the format).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memory_core.adapters.base import BINARY_MARKERS
from memory_core.exchange.readers.base import loads, without_bom
from memory_core.model.errors import ExportFormatError

#: skip(reason, where): how the reader reports what it leaves out.
Skip = Callable[[str, str], None]

#: Line types Claude Code writes; a first line of one of them (with a session key) is how the
#: adapter recognises a transcript.
KNOWN_TYPES = ("user", "assistant", "system", "progress", "summary", "file-history-snapshot",
               "queue-operation", "custom-title", "attachment")
SESSION_KEYS = ("sessionId", "leafUuid", "snapshot")
SKIP_TRUNCATED = "truncated last line (transcript still being written?)"


def required_text(value: Any, where: str, name: str) -> str:
    """`value` when it is non-empty text; else an error naming `where` and `name`."""
    if not isinstance(value, str) or not value.strip():
        raise ExportFormatError(f"{where}: {name} must be non-empty text, got {value!r:.60}")
    return value


def blocks_of(message: Any, where: str, kind: str) -> list[dict[str, Any]]:
    """A line's `message.content` as a list of blocks (a string is one text block), each
    checked to be an object with a `type`; else an error naming `where`."""
    if not isinstance(message, dict):
        raise ExportFormatError(f"{where}: the {kind} line has no 'message' object")
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise ExportFormatError(
            f"{where}: message.content of the {kind} line must be text or a list of blocks, "
            f"got {type(content).__name__} {content!r:.60}")
    for index, block in enumerate(content, start=1):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise ExportFormatError(
                f"{where}: block {index} of message.content is not an object with a 'type'")
        if block["type"] == "text" and not isinstance(block.get("text"), str):
            raise ExportFormatError(f"{where}: text block {index} has no 'text' string")
    return content


def iter_lines(path: Path, where: str, skip: Skip) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; see the module doc for errors."""
    with path.open("rb") as handle:
        if any(marker in handle.read(8192) for marker in BINARY_MARKERS):
            raise ExportFormatError(f"{path} is a binary file, not a Claude Code transcript")
        handle.seek(0)
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = without_bom(raw)
            if not raw.strip():
                continue
            try:
                value = loads(raw)
            except UnicodeDecodeError as exc:
                raise ExportFormatError(f"{path}: line {number} is not UTF-8 text") from exc
            except json.JSONDecodeError as exc:
                if not raw.endswith(b"\n"):
                    skip(SKIP_TRUNCATED, f"{where} line {number}")
                    return
                raise ExportFormatError(
                    f"{path}: line {number} is not JSON ({exc.msg}); the file may be "
                    f"truncated or corrupted") from exc
            if not isinstance(value, dict):
                raise ExportFormatError(f"{path}: line {number} is not a JSON object")
            yield number, value


def peek(path: Path, key: str, lines: int = 50) -> str | None:
    """The first string value of `key` among the first `lines` lines (never raises)."""
    try:
        with path.open("rb") as handle:
            for number, raw in zip(range(lines), handle, strict=False):
                try:
                    value = loads(without_bom(raw) if number == 0 else raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if isinstance(value, dict) and isinstance(value.get(key), str) and value[key]:
                    return str(value[key])
    except OSError:
        return None
    return None


def looks_like_transcript_line(text: str) -> bool:
    """Whether `text` is a line Claude Code writes (a known type with a session key)."""
    try:
        value = loads(text)
    except (json.JSONDecodeError, ValueError):
        return False
    return (isinstance(value, dict) and value.get("type") in KNOWN_TYPES
            and any(key in value for key in SESSION_KEYS))
