"""Where the HADES collections are in a folder, and the documents in each.

A HADES store is five ArangoDB collections: `observations`, `reflections`, `entities`
(documents), `relationships` (edges) and `sessions`. A folder may hold them as

* one file per collection, `<name>.json` (a JSON array, as `arangoexport --type json` writes)
  or `<name>.jsonl` / `<name>.ndjson` (one document per line, `arangoexport --type jsonl`);
* an `arangodump` folder: `<name>.structure.json` beside `<name>_<md5>.data.json` (older
  versions `<name>.data.json`, split dumps `<name>_<md5>.<n>.data.json`, optionally `.gz`),
  one line per document, either the document itself or the old envelope
  `{"type": 2300, "data": {...}}` (2300 stores a document, 2302 removes it again).

`collection_files` finds them (a collection in two shapes is an error: which one is current
is not ours to guess); `iter_documents` yields each document with its place in its file.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Callable, Iterator
from io import BufferedReader
from pathlib import Path
from typing import Any

from memory_core.adapters.base import BINARY_MARKERS, iter_json_objects
from memory_core.exchange.readers.base import loads, without_bom
from memory_core.model.errors import ExportFormatError

COLLECTIONS: tuple[str, ...] = ("observations", "reflections", "entities", "relationships",
                                "sessions")
MEMORY_COLLECTIONS: tuple[str, ...] = ("observations", "reflections", "entities")
EXPORT_SUFFIXES: tuple[str, ...] = (".json", ".jsonl", ".ndjson")
DUMP_FILE = re.compile(
    r"^(?P<name>.+?)(?:_[0-9a-f]{32})?(?:\.(?P<part>\d+))?\.data\.json(?P<gz>\.gz)?$")
#: arangodump's envelope markers: store a document, remove one.
DOCUMENT_MARKER, REMOVE_MARKER = 2300, 2302
REMOVAL = re.compile(rb'"type"\s*:\s*2302\b')
SHAPES = ("<name>.json, .jsonl or .ndjson (arangoexport) or <name>_<hash>.data.json "
          "(arangodump)")
Skip = Callable[[str, str], None]


def _collection_of(name: str) -> tuple[str, str, int] | None:
    """(collection, "export" or "dump", split part) of a file name, or None."""
    for collection in COLLECTIONS:
        if name in (collection + suffix for suffix in EXPORT_SUFFIXES):
            return collection, "export", 0
    match = DUMP_FILE.match(name)
    if match and match["name"] in COLLECTIONS:
        return match["name"], "dump", int(match["part"] or 0)
    return None


def collection_files(path: Path) -> dict[str, list[Path]]:
    """{collection: its files, in reading order} for a folder (or one collection file)."""
    if path.is_file():
        found = _collection_of(path.name)
        if found is None:
            raise ExportFormatError(
                f"{path} is not a HADES collection file; give a folder holding the "
                f"collections ({', '.join(COLLECTIONS)}) as {SHAPES}")
        return {found[0]: [path]}
    if not path.is_dir():
        raise ExportFormatError(f"there is no folder at {path}")
    shapes: dict[str, dict[str, list[tuple[int, Path]]]] = {}
    for child in sorted(path.iterdir()):
        found = _collection_of(child.name) if child.is_file() else None
        if found is not None:
            collection, shape, part = found
            shapes.setdefault(collection, {}).setdefault(shape, []).append((part, child))
    files: dict[str, list[Path]] = {}
    for collection in COLLECTIONS:
        by_shape = shapes.get(collection, {})
        exported, dumped = by_shape.get("export", []), by_shape.get("dump", [])
        if len(exported) > 1 or (exported and dumped):
            names = ", ".join(p.name for _, p in exported + dumped)
            raise ExportFormatError(
                f"{path} holds the {collection} collection more than once ({names}); keep "
                f"one of them")
        if exported or dumped:
            files[collection] = [p for _, p in sorted(exported + dumped)]
    if not files:
        raise ExportFormatError(
            f"{path} holds none of the HADES collections: expected {', '.join(COLLECTIONS)} "
            f"as {SHAPES}")
    if not any(c in files for c in MEMORY_COLLECTIONS):
        raise ExportFormatError(
            f"{path} holds only {' and '.join(files)}: there is nothing to import without "
            f"observations, reflections or entities")
    return files


def _open(path: Path) -> gzip.GzipFile | BufferedReader:
    return gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb")


def _head(path: Path, size: int = 65536) -> bytes:
    with _open(path) as handle:
        return handle.read(size)


def looks_like_hades(path: Path) -> bool:
    """Whether `path` is a folder of HADES collections whose first memory file holds
    ArangoDB documents (`_key` / `_id`); never raises."""
    if not path.is_dir():
        return False
    try:
        files = collection_files(path)
    except ExportFormatError as exc:
        return "more than once" in str(exc)  # ours, and `open` says what is wrong
    try:
        first = next(files[c][0] for c in MEMORY_COLLECTIONS if c in files)
        head = _head(first)
    except (OSError, EOFError, zlib.error):
        return False
    return b'"_key"' in head or b'"_id"' in head


def _raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each non-blank line of a dump file, read errors named."""
    try:
        head = without_bom(_head(path, 8192))
        if not head.strip():
            raise ExportFormatError(f"{path} is empty")
        if any(marker in head for marker in BINARY_MARKERS):
            raise ExportFormatError(f"{path} is a binary file, not an arangodump data file")
        with _open(path) as handle:
            for number, raw in enumerate(handle, start=1):
                if number == 1:
                    raw = without_bom(raw)
                if raw.strip():
                    yield number, raw
    except (OSError, EOFError, zlib.error) as exc:
        raise ExportFormatError(f"{path}: cannot read the dump file ({exc})") from exc


def _dump_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank line of an arangodump data file."""
    for number, raw in _raw_lines(path):
        try:
            value = loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ExportFormatError(
                f"{path}: line {number} is not JSON ({exc}); the file may be truncated"
            ) from exc
        if not isinstance(value, dict):
            raise ExportFormatError(f"{path}: line {number} is not a JSON object")
        yield number, value


def _envelope(value: dict[str, Any]) -> bool:
    kind = value.get("type")
    return isinstance(kind, int) and not isinstance(kind, bool) and "data" in value


def _superseded(path: Path) -> set[int]:
    """Envelope lines a later line of the same `_key` replaces or removes."""
    if not any(REMOVAL.search(raw) for _, raw in _raw_lines(path)):
        return set()  # nothing removed: the usual dump, parsed once
    lines: dict[str, list[int]] = {}
    for number, value in _dump_lines(path):
        data = value.get("data")
        if _envelope(value) and isinstance(data, dict) and isinstance(data.get("_key"), str):
            lines.setdefault(data["_key"], []).append(number)
    return {n for numbers in lines.values() for n in numbers[:-1]}


def _iter_dump(path: Path, skip: Skip) -> Iterator[tuple[str, dict[str, Any]]]:
    superseded = _superseded(path)
    for number, value in _dump_lines(path):
        place = f"line {number}"
        if not _envelope(value):
            yield place, value
            continue
        kind, data = value["type"], value["data"]
        if number in superseded:
            skip("arangodump line replaced or removed later in the dump",
                 f"{path.name} {place}")
        elif kind == REMOVE_MARKER:
            skip("arangodump removal marker", f"{path.name} {place}")
        elif kind != DOCUMENT_MARKER:
            skip(f"arangodump marker type {kind} (not a document)", f"{path.name} {place}")
        elif not isinstance(data, dict):
            raise ExportFormatError(f"{path}: {place}: 'data' is not a JSON object")
        else:
            yield place, data


def iter_documents(path: Path, skip: Skip) -> Iterator[tuple[str, dict[str, Any]]]:
    """("item N" or "line N", document) for each document of a collection file; dump
    lines that are not current documents go to `skip(reason, where)`."""
    if DUMP_FILE.match(path.name):
        yield from _iter_dump(path, skip)
    else:
        yield from iter_json_objects(path)
