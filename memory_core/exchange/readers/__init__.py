"""The registry of import formats, keyed by name (`memlens import --format NAME`).

Built in: `memlens` (memlens exports of any schema version, migrated) and the adapters of
`memory_core.adapters` (seed 001's `superagents_export` files and the other foreign formats).
More readers register with `register_reader`; `--format auto` asks each registered reader, in
registration order, whether it recognises the path.

>>> reader_names()[:2]
['memlens', 'superagents']
"""

from __future__ import annotations

from pathlib import Path

from memory_core.errors import ExportFormatError, UnknownFormatError
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
_READERS: dict[str, ExportReader] = {}


def _builtins() -> None:
    if _READERS:
        return
    from memory_core.adapters import builtin_adapters
    from memory_core.exchange.readers.memlens import MemlensReader

    for reader in (MemlensReader(), *builtin_adapters()):
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
    """The first registered reader that recognises `path`."""
    _builtins()
    head = first_line(path)
    if not head.strip() and path.is_file():
        raise ExportFormatError(f"{path} is empty; there is nothing to import")
    for reader in _READERS.values():
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
