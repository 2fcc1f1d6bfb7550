"""Lance's errors on a damaged store turned into one `StoreDamagedError` line.

Lance reports a missing or broken file as a `RuntimeError`, `OSError` or `ValueError`
(`lance error: Not found: .../memories.lance/data/<file>.lance`, `LanceError(IO): file size
is too small`, `Unsupported bits_per_offset=0`), from deep in a query. `store_damage` says
whether an error is one of those and, if so, which table and file: the path the error names,
or else the first problem a scan of the store finds (the stores this process opened are
remembered for that: an error raised mid-query does not say which store it came from).
"""

from __future__ import annotations

import re
import shlex
import threading
from typing import TYPE_CHECKING

from memory_core.model.errors import MemlensError, StoreDamagedError

if TYPE_CHECKING:
    from memory_core.store.files.findings import Problem

#: Words of Lance's messages about a file it cannot decode (lower case): the store is read
#: whole to find which (a missing or cut file is found without reading).
UNDECODABLE = ("corrupt file", "magic number", "failed to fill whole buffer",
               "does not appear to be a lance file", "bits_per_offset")
#: Words of Lance's messages about files it cannot read (lower case).
DAMAGE_WORDS = ("lanceerror(io)", "not found: ", "file size is too small", *UNDECODABLE,
                "invalid user input", "external error", "lance error")
_PATH = re.compile(r"(?P<table>[A-Za-z0-9_-]+)\.lance/(?P<file>[^\s,'\"]+)")
_OPENED: dict[str, dict[str, str] | None] = {}
_OPENED_GUARD = threading.Lock()


def remember_store(uri: str, storage_options: dict[str, str] | None = None) -> None:
    """Note that this process opened the store at `uri`, for `store_damage` to scan."""
    with _OPENED_GUARD:
        _OPENED.pop(uri, None)  # the latest opened is scanned first
        _OPENED[uri] = storage_options


def _messages(exc: BaseException) -> str:
    """The messages of `exc` and of what it wraps, lower case."""
    texts: list[str] = []
    seen: BaseException | None = exc
    while seen is not None and len(texts) < 10:
        texts.append(str(seen).lower())
        seen = seen.__cause__ or seen.__context__
    return "\n".join(texts)


def _from_lance(exc: BaseException) -> bool:
    """Whether `exc` (or what it wraps) reads like Lance failing on a file."""
    text = _messages(exc)
    return any(word in text for word in DAMAGE_WORDS)


def _fix(uri: str | None) -> str:
    where = f" --store {shlex.quote(uri)}" if uri else ""
    return f"run `memlens check{where}` (`--repair` fixes it)"


def damaged(table: str, problem: str, uri: str | None, file: str = "") -> StoreDamagedError:
    """The error naming `table`, what is wrong with it and the command that says more."""
    return StoreDamagedError(f"the store's {table} table is damaged ({problem}); {_fix(uri)}",
                             table=table, file=file)


def _named_store(text: str, stores: dict[str, dict[str, str] | None]) -> str | None:
    """The remembered store whose folder the error text names (Lance drops the leading
    slash of a local path)."""
    for uri in stores:
        if uri.strip("/") and uri.strip("/") in text:
            return uri
    return None


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scanned(uri: str, storage_options: dict[str, str] | None, *, deep: bool
             ) -> Problem | None:
    """The first file problem of the store at `uri` (a scan without the row checks; files
    read whole only when `deep`)."""
    from memory_core.store.files.scan import present_tables, scan_table
    from memory_core.store.files.versions import table_uri

    for name in present_tables(uri, storage_options):
        check = scan_table(name, table_uri(uri, name), storage_options, deep=deep)
        if check.problems:
            return check.problems[0]
    return None


def store_damage(exc: BaseException, uri: str | None = None,
                 storage_options: dict[str, str] | None = None) -> StoreDamagedError | None:
    """The `StoreDamagedError` to raise instead of `exc`, or None when `exc` is not Lance
    failing on a damaged file. `uri` is the store being opened, if known."""
    if isinstance(exc, MemlensError) or not _from_lance(exc):
        return None
    with _OPENED_GUARD:
        stores = dict(reversed(_OPENED.items()))
    match = _PATH.search(str(exc))
    if match and match["table"] in ("memories", "edges", "audit", "events"):
        from memory_core.store.files.scan import short

        file = match["file"]
        what = "missing" if "not found" in str(exc).lower() else short(exc)
        return damaged(match["table"], f"{_cut(file, 64)}: {_cut(what, 64)}",
                       uri or _named_store(str(exc), stores), file)
    if uri is not None:
        stores = {uri: storage_options, **stores}
    # a query's own mistake can read like Lance's IO errors: only a decoding failure is
    # worth reading the whole store for
    deep = any(word in _messages(exc) for word in UNDECODABLE)
    for store_uri, options in stores.items():
        try:
            problem = _scanned(store_uri, options, deep=deep)
        except (OSError, ValueError, RuntimeError):
            continue
        if problem is not None:
            what = problem.what.split(" (read by version")[0]
            return damaged(problem.table, f"{_cut(problem.file, 64)}: {_cut(what, 64)}",
                           store_uri, problem.file)
    return None
