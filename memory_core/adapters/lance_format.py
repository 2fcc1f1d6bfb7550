"""The Lance file format of a source table, and the one line that refuses a format the
installed Lance cannot read.

Lance writes data files in numbered formats (2.0, 2.1, 2.2, ...): `stable` is the newest one
a release promises to read in later releases, `next` a draft that may still change. A table
written in a draft by another Lance release can hold encodings the installed one does not know
(pylance 14's 2.3 `PlanarLayout` pages fail pylance 9 with a protobuf `ValueError` mid-scan).
`table_format` reads the format (`LanceDataset.data_storage_version`) and the writer the
manifest records (`writer_version`: library and version) before any row is read; a format
newer than the reading Lance's stable one, written by another Lance, is a draft: the source
opens with a one-row read, and `unreadable` is the error that says which format, which Lance
wrote it and how to rewrite it when that read fails.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from tempfile import TemporaryDirectory
from typing import Any

from memory_core.model.errors import ExportFormatError

log = logging.getLogger(__name__)

#: Field numbers in Lance's `Manifest` protobuf (protos/table.proto).
WRITER_VERSION_FIELD = 13
LIBRARY_FIELD, VERSION_FIELD = 1, 2


@dataclass(frozen=True)
class TableFormat:
    """A source table's file format and the Lance that wrote it (None when not recorded)."""

    version: str
    writer: str | None

    @property
    def draft(self) -> bool:
        """Whether the format is newer than the reading Lance's stable one and was written by
        another Lance: then the reading Lance may not be able to decode it."""
        reader = _reader()
        return _newer(self.version, reader.version) and self.writer != reader.writer


def installed_lance() -> str:
    """"lance 13.0.0": the Lance that reads source tables here, as a manifest names it."""
    return _reader().writer or "the installed Lance"


def installed_stable() -> str:
    """The stable file format of the Lance that reads source tables here ("2.2")."""
    return _reader().version


@cache
def _reader() -> TableFormat:
    """The format and writer of a one-row table LanceDB writes with its defaults.

    Rows are read through LanceDB, whose Rust core embeds its own Lance release (not
    pylance's), and neither package names that release or its stable format; a table it
    writes records both. Written once per process, in a temporary folder.
    """
    import lance
    import lancedb
    import pyarrow as pa
    from lance.file import stable_version

    try:
        with TemporaryDirectory(prefix="memlens-lance-") as folder:
            table = lancedb.connect(folder).create_table("probe", pa.table({"a": [1]}))
            return table_format(table.to_lance())
    except (OSError, RuntimeError, ValueError) as exc:  # no writable temporary folder
        log.warning("cannot tell which Lance LanceDB embeds (%s); taking pylance's", exc)
        return TableFormat(str(stable_version()), f"lance {lance.__version__}")


def _newer(version: str, than: str) -> bool:
    def key(text: str) -> tuple[int, ...]:
        return tuple(int(p) if p.isdigit() else 0 for p in text.split("."))

    return key(version) > key(than)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> dict[int, bytes]:
    """The length-delimited fields of a protobuf message (the last one of each number)."""
    out: dict[int, bytes] = {}
    at = 0
    while at < len(data):
        tag, at = _varint(data, at)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, at = _varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            size, at = _varint(data, at)
            out[number] = data[at:at + size]
            at += size
        else:  # groups: not used by Lance's manifest
            break
    return out


def manifest_writer(manifest: bytes) -> str | None:
    """"lance 14.0.2" from a serialized manifest's `writer_version`; None when absent or
    unreadable."""
    try:
        writer = _fields(_fields(manifest).get(WRITER_VERSION_FIELD, b""))
        library = writer.get(LIBRARY_FIELD, b"").decode()
        version = writer.get(VERSION_FIELD, b"").decode()
    except (IndexError, UnicodeDecodeError):
        return None
    return f"{library} {version}".strip() or None


def table_format(dataset: Any) -> TableFormat:
    """The format of a `lance.LanceDataset` and its writer. The writer comes from the
    serialized manifest, which pylance exposes only on its native handle
    (`store/lance_private.py`); without it the writer is unknown."""
    from memory_core.store import lance_private

    try:
        manifest = lance_private.serialized_manifest(dataset)
    except (RuntimeError, OSError, ValueError):
        manifest = None
    writer = manifest_writer(manifest) if manifest else None
    return TableFormat(str(dataset.data_storage_version), writer)


def unreadable(path: str, fmt: TableFormat) -> ExportFormatError:
    """The error for the table at `path` in a format the reading Lance cannot decode."""
    writer = fmt.writer or "another Lance"
    return ExportFormatError(
        f"{path}: Lance file format {fmt.version}, a draft {writer} wrote, which "
        f"{installed_lance()} here cannot read; with {writer}, run lance.write_dataset("
        f"lance.dataset(SRC), DST, data_storage_version={installed_stable()!r}) and import "
        f"DST; nothing was imported")
