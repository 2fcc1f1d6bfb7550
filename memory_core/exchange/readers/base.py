"""The boundary of `memlens import`: an `ExportReader` turns a file into canonical records.

A reader knows one file format. `sniff` says whether a file looks like its format (for
`--format auto`); `open` reads the header and returns an `ExportSource`, whose `records()`
streams `SourceRecord`s: canonical documents of the current schema (DESIGN.md section 5),
each with the line it came from. Readers check what their format can check (manifest,
checksum, counts) and raise `ExportFormatError` naming the line; the importer validates the
records and loads them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from memory_core.errors import ExportFormatError


@dataclass(frozen=True)
class SourceInfo:
    """What a file says about itself."""

    format: str
    path: str
    schema_version: int
    exported_at: str = ""
    tenant: str | None = None
    record_types: tuple[str, ...] = ()
    #: Record counts the file declares, by kind (empty when it declares none).
    counts: Mapping[str, int] = field(default_factory=dict)
    #: The declared body checksum; None when the format has none.
    body_sha256: str | None = None
    #: {"model": id, "dimension": d} of the vectors in the file, when it says.
    embedding: Mapping[str, Any] | None = None
    #: Names of the migration steps applied to its records, oldest first.
    migrations: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceRecord:
    """One record of a file in canonical form, with the line it came from (1-based)."""

    line: int
    kind: str
    doc: dict[str, Any]


class ExportSource:
    """An opened file: its `info` and a one-shot stream of its records."""

    def __init__(self, info: SourceInfo, records: Callable[[], Iterator[SourceRecord]]) -> None:
        self.info = info
        self._records = records

    def records(self) -> Iterator[SourceRecord]:
        """The records, in file order; integrity checks run as the stream ends."""
        return self._records()


class ExportReader(ABC):
    """One import format, registered by `name` (see `memory_core.exchange.readers`)."""

    name: ClassVar[str]
    #: One line for `--help` and error messages.
    summary: ClassVar[str]

    @abstractmethod
    def sniff(self, path: Path, first_line: str) -> bool:
        """True when the file (whose first line is `first_line`, "" for folders) is this
        reader's format."""

    @abstractmethod
    def open(self, path: Path) -> ExportSource:
        """Read the header of `path` and return its source; raises `ExportFormatError`."""


def first_line(path: Path) -> str:
    """The first line of a file as text ("" for a folder or an empty file)."""
    if path.is_dir():
        return ""
    if not path.is_file():
        raise ExportFormatError(f"there is no export file at {path}")
    with path.open("rb") as handle:
        raw = handle.readline(1 << 20)
    return raw.decode("utf-8", errors="replace")


def manifest_has(first_line: str, key: str) -> bool:
    """Whether `first_line` is a JSON object with `key`: how readers sniff manifests."""
    import json

    try:
        head = json.loads(first_line)
    except json.JSONDecodeError:
        return False
    return isinstance(head, dict) and key in head
