"""The checks of `verify_deleted` that read files: the map caches and the store's own files.

Both look for the bytes of the deleted memories (each content, and the first 32 floats of
each vector, which the tables and the maps' fitted models keep as float32) with
`ByteNeedles`, so each file is read once, however many memories were deleted. The store's
files are those that can hold rows: data files, index files and import staging, not the
manifests, transaction and deletion files (which hold schemas, fragment lists and row ids).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from memory_core.curation.byte_search import ByteNeedles
from memory_core.curation.checks import FAIL, INFO, PASS, SKIP, Check, found
from memory_core.model.config import Settings
from memory_core.model.filters import sql_in, sql_string
from memory_core.model.records import Memory
from memory_core.model.schema import AUDIT
from memory_core.store import MemoryStore
from memory_core.store.tables import is_remote

#: Folders of a Lance table that hold no row data (manifests, commits, deleted row ids).
NO_ROWS = frozenset({"_versions", "_transactions", "_deletions"})
#: Contents shorter than this are not searched for: they would match unrelated bytes.
MIN_CONTENT = 12
SHARED = "the same text is also held by another record of this store"


def needles_of(memories: Mapping[str, Memory]) -> dict[bytes, str]:
    """The bytes to look for (content, the vector's first 32 floats) -> the memory's id."""
    out: dict[bytes, str] = {}
    for memory in memories.values():
        if len(memory.content) >= MIN_CONTENT:
            out[memory.content.encode("utf-8")] = memory.id
        if memory.vector:
            out[np.asarray(memory.vector[:32], dtype=np.float32).tobytes()] = memory.id
    return out


def row_files(root: Path) -> Iterator[Path]:
    """The files under `root` that can hold rows, in path order."""
    for path in sorted(root.rglob("*")):
        if path.is_file() and not NO_ROWS.intersection(path.relative_to(root).parts):
            yield path


def held_elsewhere(store: MemoryStore, memories: Sequence[Memory]) -> set[str]:
    """The ids of `memories` whose content another tenant's memory or audit row also holds
    (which keeps those bytes on disk, and is not this tenant's to purge)."""
    import polars as pl

    others = f"tenant != {sql_string(store.tenant)}"
    hashes = sorted({m.content_hash for m in memories})
    held = set(store.bulk.scan(["content_hash"], f"{others} AND "
                                                 f"{sql_in('content_hash', hashes)}")
               ["content_hash"].to_pylist()) if hashes else set()
    out = {m.id for m in memories if m.content_hash in held}
    rest = [m for m in memories if m.id not in out]
    versions = store.changes.versions_on_disk(AUDIT)
    if not rest or not versions:
        return out
    rows = pl.DataFrame(store.changes.rows_in_version(AUDIT, versions[-1], others,
                                                      ["before", "after"]),
                        schema={"before": pl.String, "after": pl.String})
    text = rows["before"].fill_null("") + rows["after"].fill_null("")
    for memory in rest:
        if text.str.contains(json.dumps(memory.content)[1:-1], literal=True).any():
            out.add(memory.id)
    return out


def files_check(store: MemoryStore, known: Mapping[str, Memory]) -> Check:
    """Whether a file of the (local) store still holds the bytes of the deleted memories.
    Bytes that another tenant's record holds too are said (without naming the file or the
    tenant) and do not fail the check."""
    if is_remote(store.uri):
        return Check("files on disk", SKIP, "the store is on object storage")
    owners = needles_of(known)
    if not owners:
        return Check("files on disk", SKIP, "neither the content nor the vector is known "
                                            "(or long enough) to search for")
    search = ByteNeedles(owners)
    root = Path(store.uri.removeprefix("file://")).expanduser()
    hits = {path: {owners[n] for n in search.found_in_file(path)} for path in row_files(root)}
    hits = {path: ids for path, ids in hits.items() if ids}
    shared = held_elsewhere(store, [known[i] for i in set().union(*hits.values())])
    leaks = [str(path.relative_to(root)) for path, ids in hits.items() if ids - shared]
    if leaks:
        return Check("files on disk", FAIL, found(leaks, "the content is in"))
    if shared:
        return Check("files on disk", INFO, f"{SHARED}, so its bytes stay on disk; no file "
                                            f"holds them otherwise")
    return Check("files on disk", PASS, "no file of the store holds the bytes of its "
                                        "content or its vector")


def maps_check(store: MemoryStore, ids: Sequence[str], known: Mapping[str, Memory],
               purged: bool) -> Check:
    """Whether a cached map of this store and tenant (`ProjectionCache`, under
    MEMLENS_MODEL_CACHE), or a map folder whose owner cannot be read, still holds the
    deleted memories: a row in its layout, or their bytes in any of its files."""
    from memory_core.projection.cache import ProjectionCache

    cache = ProjectionCache(Settings.from_env().map_cache)
    folders = cache.of_store(store.uri, store.tenant)
    if not folders:
        # the folder is not named: the report is shown on the app's pages too
        return Check("map caches", PASS, "no map of this store is cached")
    owners = needles_of(known)
    search = ByteNeedles(owners) if owners else None

    def holds(folder: Path) -> bool:
        if cache.lists(folder, ids):
            return True
        files = [p for p in folder.iterdir() if p.is_file()] if folder.is_dir() else []
        return search is not None and any(search.found_in_file(p) for p in files)

    holding = [f.name for f in folders if holds(f)]
    if not holding:
        return Check("map caches", PASS, f"none of the {len(folders)} cached map(s) of this "
                                         f"store holds it")
    if purged:
        return Check("map caches", FAIL, found(holding, "cached map(s) under "
                                                        "MEMLENS_MODEL_CACHE still hold it"))
    return Check("map caches", INFO, f"{len(holding)} cached map(s) of earlier versions still "
                                     f"hold it (never shown again: the table has a new "
                                     f"version); `delete --purge` removes them")
