"""The registry of import formats, keyed by name (`memlens import --format NAME`).

Formats register into it; it knows none of them. Each is an `ExportReader` class named in
the `memlens.formats` entry-point group of an installed distribution (memlens' own
`pyproject.toml` lists the `memlens` export reader and the adapters of `memory_core.adapters`;
another package can add formats the same way), loaded on first use; `register_reader` adds
one at run time. `--format auto` asks each reader, lowest `sniff_order` first, whether it
recognises the path. (LanceDB's `embeddings/registry.py` and llm's plugins work alike; the
registry importing no adapter is what keeps `exchange` and `adapters` free of a cycle.)

>>> reader_names()[:2]
['memlens', 'superagents']
"""

from __future__ import annotations

from pathlib import Path

from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    ExportReader,
    ExportSource,
    ReadOptions,
    SkipLog,
    SourceInfo,
    SourceRecord,
    first_line,
)
from memory_core.model.errors import ExportFormatError, UnknownFormatError

__all__ = [
    "AUTO",
    "NO_OPTIONS",
    "ExportReader",
    "ExportSource",
    "ReadOptions",
    "SkipLog",
    "SourceInfo",
    "SourceRecord",
    "detect_reader",
    "get_reader",
    "open_source",
    "reader_names",
    "register_reader",
]

AUTO = "auto"
ENTRY_POINTS = "memlens.formats"
_READERS: dict[str, ExportReader] = {}


def _installed() -> list[ExportReader]:
    """One instance of each reader class named in the `memlens.formats` entry points."""
    from importlib.metadata import entry_points

    readers = []
    for entry in entry_points(group=ENTRY_POINTS):
        reader = entry.load()()
        if reader.name != entry.name:
            raise ValueError(f"entry point {entry.name!r} of {ENTRY_POINTS} loads a reader "
                             f"named {reader.name!r}; the two must match")
        readers.append(reader)
    if not readers:
        raise UnknownFormatError(
            f"no import formats are registered (entry-point group {ENTRY_POINTS!r} is "
            f"empty): memlens is not installed; run `python -m pip install -e .`"
        )
    return sorted(readers, key=lambda r: (r.sniff_order, r.name))


def _builtins() -> None:
    if _READERS:
        return
    for reader in _installed():
        _READERS.setdefault(reader.name, reader)


def register_reader(reader: ExportReader) -> None:
    """Add a reader; a second reader under the same name is an error."""
    _builtins()
    if reader.name == AUTO or reader.name in _READERS:
        raise ValueError(f"an import format named {reader.name!r} is already registered")
    _READERS[reader.name] = reader


def reader_names() -> list[str]:
    """Names of the registered readers, in registration order."""
    _builtins()
    return list(_READERS)


def get_reader(name: str) -> ExportReader:
    """The reader registered as `name`; `UnknownFormatError` lists the known ones."""
    _builtins()
    if name not in _READERS:
        raise UnknownFormatError(
            f"unknown import format {name!r}; known: {AUTO}, {', '.join(_READERS)}"
        )
    return _READERS[name]


def detect_reader(path: Path) -> ExportReader:
    """The first registered reader (lowest `sniff_order`) that recognises `path`."""
    _builtins()
    head = first_line(path)
    if not head.strip() and path.is_file():
        raise ExportFormatError(f"{path} is empty; there is nothing to import")
    for reader in sorted(_READERS.values(), key=lambda r: r.sniff_order):
        if reader.sniff(path, head):
            return reader
    raise UnknownFormatError(
        f"cannot tell the format of {path}: no import format recognises it; "
        f"give --format (known: {', '.join(_READERS)})"
    )


def open_source(path: Path | str, format: str = AUTO,
                options: ReadOptions = NO_OPTIONS) -> ExportSource:
    """Open `path` with the reader named `format` (`auto`: sniff it)."""
    path = Path(path)
    first_line(path)  # a missing file is an error before anything else
    reader = detect_reader(path) if format == AUTO else get_reader(format)
    return reader.open(path, options)
