"""Scanning one table: its latest version's manifest, data files, deletion files and
indexes, read in full, and the newest version whose files all read.

Every data file is read through Lance (a fragment at a time, in batches), so a missing,
truncated or undecodable file is found wherever it is; a local file is also measured
against the size its manifest records. Versions are walked newest first; a file read once
is not read again for an older version.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory_core.model.schema import AUDIT, EDGES, EVENTS, MEMORIES
from memory_core.store.files.findings import LANCE_ERRORS, Problem, TableCheck, short
from memory_core.store.files.indexes import damaged_indexes
from memory_core.store.files.versions import (
    Manifest,
    local_path,
    manifests,
    table_uri,
    version_hint,
)

log = logging.getLogger(__name__)

#: Rows per batch when a fragment is read whole (bounds the memory a check takes).
BATCH_ROWS = 8192
@dataclass
class _FileCache:
    """What reading each file found, so that older versions sharing it are not re-read;
    `deep` off measures files without reading them (a quick look after an error)."""

    failures: dict[str, str] = field(default_factory=dict)
    good: set[str] = field(default_factory=set)
    deep: bool = True


def open_version(uri: str, version: int | None,
                 storage_options: dict[str, str] | None = None) -> Any:
    """The Lance dataset of the table at `uri` at `version` (the latest when None)."""
    import lance

    return lance.dataset(uri, version=version, storage_options=storage_options)


def _size_problem(uri: str, relative: str, recorded: int | None) -> str | None:
    folder = local_path(uri)
    if folder is None:
        return None
    path = folder / relative
    if not path.exists():
        return "missing"
    size = path.stat().st_size
    if recorded and size != recorded:
        return f"truncated or overwritten: {size:,} of the {recorded:,} bytes recorded"
    return None


def _fragment_files(fragment: Any) -> Iterator[tuple[str, int | None]]:
    for data in fragment.data_files():
        yield f"data/{data.path}", getattr(data, "file_size_bytes", None)
    deletion = fragment.deletion_file()
    if deletion:
        yield str(deletion), None


def _read_fragment(fragment: Any) -> None:
    for _ in fragment.to_batches(batch_size=BATCH_ROWS):
        pass


def _check_fragment(uri: str, fragment: Any, cache: _FileCache) -> list[tuple[str, str]]:
    """(file, what is wrong) for each damaged file of `fragment`."""
    files = list(_fragment_files(fragment))
    found = [(f, cache.failures[f]) for f, _ in files if f in cache.failures]
    if found or all(f in cache.good for f, _ in files):
        return found
    for relative, recorded in files:
        problem = _size_problem(uri, relative, recorded)
        if problem:
            found.append((relative, problem))
    if not found and cache.deep:
        try:
            _read_fragment(fragment)
        except LANCE_ERRORS as exc:
            found.append((_blamed(uri, files, exc), f"unreadable: {short(exc)}"))
    for relative, what in found:
        cache.failures[relative] = what
    if not found:
        cache.good.update(f for f, _ in files)
    return found


def _blamed(uri: str, files: list[tuple[str, int | None]], exc: BaseException) -> str:
    """The file of a fragment a read error is about: the one it names, else the only data
    file, else the first data file that does not read on its own."""
    text = str(exc)
    named = [f for f, _ in files if f.rsplit("/", 1)[-1] in text]
    if named:
        return named[0]
    data = [f for f, _ in files if f.startswith("data/")]
    if len(data) == 1:
        return data[0]
    from lance.file import LanceFileReader

    for relative in data:
        try:
            LanceFileReader(f"{uri}/{relative}").metadata()
        except LANCE_ERRORS:
            return relative
    return data[0] if data else files[0][0]


def _version_problems(uri: str, ds: Any, cache: _FileCache) -> list[tuple[str, str]]:
    out = []
    for fragment in ds.get_fragments():
        out.extend(_check_fragment(uri, fragment, cache))
    return out


def scan_table(name: str, uri: str, storage_options: dict[str, str] | None = None, *,
               deep: bool = True) -> TableCheck:
    """Check table `name` (at `uri`): its latest version's files, then older versions until
    one reads whole; the indexes of that version. Without `deep`, files are looked at (there,
    of the size their manifest records) but not read, and indexes are not checked."""
    try:
        listed = manifests(uri, storage_options)
    except LANCE_ERRORS as exc:
        problem = Problem(name, "_versions", f"the versions cannot be listed: {short(exc)}")
        return TableCheck(name, None, None, problems=(problem,))
    if not listed:
        return TableCheck(name, None, None,
                          problems=(Problem(name, "_versions", "no manifest: the table "
                                                               "has no version left"),))
    cache = _FileCache(deep=deep)
    problems: list[Problem] = []
    broken: list[str] = []
    latest = listed[0].version
    hint = version_hint(uri)
    if hint is not None and hint > latest:
        problems.append(Problem(
            name, "_versions", f"the newest manifests are gone: Lance last committed version "
                               f"{hint}, the newest manifest left is version {latest}",
            kind="lost"))
    good: Manifest | None = None
    good_ds: Any = None
    reported: set[str] = set()
    for manifest in listed:
        try:
            ds = open_version(uri, manifest.version, storage_options)
        except LANCE_ERRORS as exc:
            broken.append(manifest.file)
            problems.append(Problem(name, manifest.file,
                                    f"manifest of version {manifest.version} unreadable: "
                                    f"{short(exc)}"))
            continue
        damaged = _version_problems(uri, ds, cache)
        for file, what in damaged:
            if file not in reported:
                reported.add(file)
                problems.append(Problem(name, file, f"{what} (read by version "
                                                    f"{manifest.version})"))
        if not damaged:
            good, good_ds = manifest, ds
            break
    indexes: dict[str, str] = {}
    if good_ds is not None:
        for index_name, column, file, what in damaged_indexes(uri, good_ds) if deep else ():
            indexes[index_name] = column
            problems.append(Problem(name, file, what, kind="index"))
    else:
        problems.append(Problem(name, "", "no version of the table reads whole"))
    return TableCheck(
        name, latest, good.version if good else None,
        good_at=_version_time(uri, good, good_ds) if good is not None else None,
        problems=tuple(problems), damaged_indexes=indexes,
        broken_manifests=tuple(broken))


def _version_time(uri: str, manifest: Manifest, ds: Any) -> datetime | None:
    """When `manifest`'s version was committed: its file's time (a local table), else what
    Lance lists (which needs every manifest readable)."""
    from datetime import UTC

    folder = local_path(uri)
    if folder is not None:
        return datetime.fromtimestamp((folder / manifest.file).stat().st_mtime, UTC)
    try:
        for v in ds.versions():
            if int(v["version"]) == manifest.version:
                stamp = v["timestamp"]
                return stamp if isinstance(stamp, datetime) else None
    except LANCE_ERRORS:
        return None
    return None


#: The tables of a store, in the order they are checked and reported.
TABLES = (MEMORIES, EDGES, AUDIT, EVENTS)


def present_tables(uri: str, storage_options: dict[str, str] | None = None) -> list[str]:
    """The store's tables that exist (events is absent from a schema v1 store)."""
    out = []
    for name in TABLES:
        path = local_path(table_uri(uri, name))
        if path is not None:
            if path.is_dir():
                out.append(name)
            continue
        try:
            open_version(table_uri(uri, name), None, storage_options)
        except LANCE_ERRORS as exc:
            if "not found" not in str(exc).lower() and "does not exist" not in str(exc):
                out.append(name)  # there, but damaged: the scan says how
        else:
            out.append(name)
    return out
