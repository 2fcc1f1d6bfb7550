"""The boundary of `memlens import`: an `ExportReader` turns a file into canonical records.

A reader knows one file format. `sniff` says whether a file looks like its format (for
`--format auto`); `open` reads the header and returns an `ExportSource`, whose `records()`
streams `SourceRecord`s: canonical documents of the current schema (docs/design/exports.md),
each with the line it came from. Readers check what their format can check (manifest,
checksum, counts) and raise `ExportFormatError` naming the line; the importer validates the
records and loads them.
"""

from __future__ import annotations

import codecs
import json
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from memory_core.model.errors import ExportFormatError

#: The UTF-8 byte-order mark. Windows tools (Notepad, PowerShell's `Out-File`, Excel) write it
#: first; every reader treats a file that starts with it like one that does not.
BOM = codecs.BOM_UTF8
#: How text read from the start of a file is decoded: UTF-8, a leading BOM dropped.
TEXT_ENCODING = "utf-8-sig"


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
    #: Where the record is, for formats without lines ("item 3", "file.md", "row 12").
    where: str | None = None

    @property
    def place(self) -> str:
        """Where the record is, for error messages."""
        return self.where or f"line {self.line}"


@dataclass(frozen=True)
class ReadOptions:
    """What `memlens import` passes to a reader besides the path.

    `limit` caps what is read (each format says in what unit: records, sessions, files);
    `project` keeps only one project's data (formats that have projects); `table` names the
    table of a database source; `params` holds format-specific `--param KEY=VALUE` settings;
    `tenant` is the tenant the import writes into (set by the importer, for formats whose
    records name their owner).
    """

    limit: int | None = None
    project: str | None = None
    table: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    tenant: str | None = None

    def param(self, key: str, default: str | None = None) -> str | None:
        """One `--param` value, or `default`."""
        return self.params.get(key, default)


NO_OPTIONS = ReadOptions()


class SkipLog:
    """Records a reader left out on purpose, counted by reason, with a few examples each."""

    EXAMPLES = 3

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}

    def skip(self, reason: str, where: str) -> None:
        """Note that the record at `where` (a line, an id, a file) was skipped for `reason`."""
        self.counts[reason] += 1
        shown = self.examples.setdefault(reason, [])
        if len(shown) < self.EXAMPLES:
            shown.append(where)

    @property
    def total(self) -> int:
        """How many records were skipped."""
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """{reason: {"count": n, "examples": [...]}}, most frequent first."""
        return {reason: {"count": n, "examples": list(self.examples.get(reason, []))}
                for reason, n in self.counts.most_common()}


class ExportSource:
    """An opened file: its `info` and a one-shot stream of its records.

    Readers fill `skips` (records left out, with reasons), `notes` (lines for the import
    report, e.g. what an extractor produced) and, for benchmark formats, `queries`
    (query-set lines referring to memory ids) while the stream runs.
    """

    def __init__(self, info: SourceInfo, records: Callable[[], Iterator[SourceRecord]],
                 skips: SkipLog | None = None) -> None:
        self.info = info
        self._records = records
        self.skips = skips if skips is not None else SkipLog()
        self.queries: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def records(self) -> Iterator[SourceRecord]:
        """The records, in file order; integrity checks run as the stream ends."""
        return self._records()


class ExportReader(ABC):
    """One import format, registered by `name` (see `memory_core.exchange.readers`)."""

    name: ClassVar[str]
    #: One line for `--help` and error messages.
    summary: ClassVar[str]
    #: The import mode when none is given: exports restore into an empty tenant, foreign
    #: formats merge (so importing the same input again adds nothing).
    default_mode: ClassVar[Literal["empty", "merge"]] = "empty"
    #: Whether a memory whose content the tenant (or the file) already holds under another
    #: id is skipped as a duplicate, its edges pointing at the memory already held.
    dedup_content: ClassVar[bool] = False
    #: Whether the reader honours `ReadOptions.limit` / `.project` / `.table`.
    options: ClassVar[frozenset[str]] = frozenset()
    #: The `--param` keys the format takes (docs/guides/importers.md says what values they
    #: take).
    params: ClassVar[tuple[str, ...]] = ()
    #: Where `--format auto` asks this reader, lowest first (most specific sniff first).
    sniff_order: ClassVar[int] = 1000

    @abstractmethod
    def sniff(self, path: Path, first_line: str) -> bool:
        """True when the file (whose first line is `first_line`, "" for folders) is this
        reader's format."""

    @abstractmethod
    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        """Read the header of `path` and return its source; raises `ExportFormatError`."""

    def check_options(self, options: ReadOptions) -> None:
        """Refuse options and `--param` keys this format cannot honour, naming them."""
        unknown_params = sorted(set(options.params) - set(self.params))
        if unknown_params:
            raise ExportFormatError(
                f"the {self.name} format has no --param {', '.join(unknown_params)}; it takes "
                f"{', '.join(f'{k}=...' for k in self.params) or 'no --param at all'}"
            )
        given = {name for name in ("limit", "project", "table")
                 if getattr(options, name) is not None}
        unknown = sorted(given - self.options)
        if unknown:
            flags = ", ".join(f"--{name}" for name in unknown)
            raise ExportFormatError(
                f"the {self.name} format does not take {flags}; it takes "
                f"{', '.join(f'--{o}' for o in sorted(self.options)) or 'no such options'}"
            )


#: A `\\u` escape of a UTF-16 surrogate: JSON allows it, but alone it is not a character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def loads(raw: str | bytes) -> Any:
    r"""`json.loads`, also refusing what it accepts but memlens cannot store or walk.

    Bytes must be UTF-8 (`UnicodeDecodeError` otherwise). JSON escapes may spell a lone
    surrogate (`"\ud800"`), which Python decodes into a string that cannot be written as
    UTF-8 (so not to Arrow, LanceDB or a hash); and arrays nested thousands deep exhaust
    Python's recursion limit. Both are raised as `json.JSONDecodeError`, so every reader
    names the line as it does for bad JSON.

    >>> loads('{"a": "\\ud83d\\ude00"}')  # a pair is one character
    {'a': '😀'}
    >>> loads('"\\ud800"')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: a \u escape spells a lone UTF-16 surrogate, ...
    """
    # `json.loads` reads bytes with "surrogatepass": an encoded surrogate (b"\xed\xa0\x80")
    # would pass as text; strict UTF-8 raises UnicodeDecodeError, as for any bad byte
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise json.JSONDecodeError(TOO_DEEP, "", 0) from exc
    if has_lone_surrogate(value, text):
        raise json.JSONDecodeError(LONE_SURROGATE, "", 0)
    return value


#: Why `loads` (and the streaming readers) refuse JSON that `json` accepts.
TOO_DEEP = "arrays or objects nested too deeply"
LONE_SURROGATE = "a \\u escape spells a lone UTF-16 surrogate, not a character"


def has_lone_surrogate(value: Any, text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether `value`, decoded from `text[start:end]`, holds a string (key or value) that
    cannot be written as UTF-8: a lone surrogate from a `\\u` escape. The text is searched
    first, so only values that spell a surrogate escape are walked."""
    if not _SURROGATE_ESCAPE.search(text, start, len(text) if end is None else end):
        return False
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def without_bom(raw: bytes) -> bytes:
    """`raw` without a leading UTF-8 byte-order mark (the first line or chunk of a file).

    >>> without_bom(b"\\xef\\xbb\\xbf{}")
    b'{}'
    """
    return raw[len(BOM):] if raw.startswith(BOM) else raw


def read_head(path: Path, size: int) -> str:
    """The first `size` bytes of `path` as text for sniffing: a leading BOM dropped,
    undecodable bytes replaced."""
    with path.open("rb") as handle:
        return handle.read(size).decode(TEXT_ENCODING, errors="replace")


def first_line(path: Path) -> str:
    """The first line of a file as text, a leading BOM dropped ("" for a folder or an empty
    file)."""
    if path.is_dir():
        return ""
    if not path.is_file():
        raise ExportFormatError(f"there is nothing at {path}: no such file or folder to import")
    with path.open("rb") as handle:
        raw = handle.readline(1 << 20)
    return raw.decode(TEXT_ENCODING, errors="replace")


def manifest_has(first_line: str, key: str) -> bool:
    """Whether `first_line` is a JSON object with `key`: how readers sniff manifests."""
    try:
        head = loads(first_line)
    except json.JSONDecodeError:
        return False
    return isinstance(head, dict) and key in head
