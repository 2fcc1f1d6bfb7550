"""A scratch copy of a local store for an impact preview: its tables, every version, in a
scratch folder kept with the store, so a batch can run on the copy and the live store is
only read.

Lance never rewrites a data, index, deletion or transaction file once written, so those are
hard links (no bytes copied; a copy when the folder is on another file system); manifests
and the version hint are small and are copied. The version hint and manifests are taken
before the data files, so every version the copy sees has all its files even while another
process writes. Every version is kept because `undo` reads the version history.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from memory_core.embedding import Embedder
from memory_core.model.config import Settings
from memory_core.model.errors import ImpactError
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore
from memory_core.store.object_storage import is_remote

#: Lance folders whose files are immutable once written: linked, not copied.
_LINKED = ("data", "_indices", "_deletions", "_transactions")
_VERSIONS = "_versions"
_HINT = "latest_version_hint.json"


def check_copyable(store: MemoryStore) -> None:
    """Refuse what cannot be copied soundly: a store on object storage, or one with an
    interrupted write not rolled back yet (the copy would hold its half)."""
    if is_remote(store.uri):
        raise ImpactError(
            f"an impact preview runs the batch on a scratch copy, and {shown(store.uri)} is "
            f"on object storage, where memlens makes no copy; copy the store to a local "
            f"folder (`memlens export`, then `memlens import`) and preview there")
    pending = store.guard.interrupted_write()
    if pending is not None:
        raise ImpactError(f"the store has an interrupted write ({pending}); open it "
                          f"writable once so it is rolled back, then preview again")


def _place(source: Path, target: Path, *, link: bool) -> None:
    """Link (or copy) one file; a file a concurrent purge removed meanwhile belonged to
    versions that are gone, and is left out."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if not (link and _linked(source, target)):
            shutil.copy2(source, target)
    except FileNotFoundError:
        return


def _linked(source: Path, target: Path) -> bool:
    """Whether `target` is now a hard link of `source` (not on another file system, or
    where links are refused)."""
    try:
        os.link(source, target)
    except FileNotFoundError:
        raise
    except OSError:
        return False
    return True


def _copy_table(source: Path, target: Path) -> None:
    versions = source / _VERSIONS
    (target / _VERSIONS).mkdir(parents=True)
    _place(versions / _HINT, target / _VERSIONS / _HINT, link=False)
    for path in sorted(versions.iterdir()) if versions.is_dir() else ():
        if path.name != _HINT:
            _place(path, target / _VERSIONS / path.name, link=False)
    for folder, _, files in os.walk(source):
        here = Path(folder)
        part = here.relative_to(source).parts[:1]
        if part == (_VERSIONS,):
            continue  # taken first, above
        for file in files:
            # anything but the immutable folders (a root manifest, tags) is small and may
            # be rewritten: copied
            _place(here / file, target / here.relative_to(source) / file,
                   link=bool(part) and part[0] in _LINKED)


def scratch_copy(store: MemoryStore, folder: Path, embedder: Embedder) -> MemoryStore:
    """A writable copy of `store` (its tables as they are now, every version) in `folder`,
    opened for the same tenant and actor with `embedder`."""
    check_copyable(store)
    root = Path(store.tables.uri.removeprefix("file://")).expanduser()
    for name in store.tables.named():
        table = root / f"{name}.lance"
        if table.is_dir():
            _copy_table(table, folder / f"{name}.lance")
    settings = Settings.from_env(store_uri=str(folder), tenant=store.tenant, actor=store.actor,
                                 model_cache=store.model_cache)
    return MemoryStore.open(str(folder), tenant=store.tenant, embedder=embedder,
                            read_only=False, create=False, check_vectors=False,
                            settings=settings)
