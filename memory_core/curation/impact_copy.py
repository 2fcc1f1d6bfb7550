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

from memory_core.config import Settings
from memory_core.embedding import Embedder
from memory_core.errors import ImpactError
from memory_core.store import MemoryStore
from memory_core.store.object_storage import is_remote
from memory_core.untrusted import shown

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
    pending = store.interrupted_write()
    if pending is not None:
        raise ImpactError(f"the store has an interrupted write ({pending}); open it "
                          f"writable once so it is rolled back, then preview again")


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another file system, or links refused: copy the bytes
        shutil.copy2(source, target)


def _copy_table(source: Path, target: Path) -> None:
    versions = source / _VERSIONS
    (target / _VERSIONS).mkdir(parents=True)
    if (versions / _HINT).is_file():
        shutil.copy2(versions / _HINT, target / _VERSIONS / _HINT)
    for path in sorted(versions.iterdir()) if versions.is_dir() else ():
        if path.is_file() and path.name != _HINT:
            shutil.copy2(path, target / _VERSIONS / path.name)
    for name in _LINKED:
        root = source / name
        for folder, _, files in os.walk(root):
            here = Path(folder)
            for file in files:
                _place(here / file, target / here.relative_to(source) / file)
    for path in source.iterdir():  # anything else at the top (small): copied as it is
        if path.is_file():
            shutil.copy2(path, target / path.name)


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
                                 model_cache=store._cache)
    return MemoryStore.open(str(folder), tenant=store.tenant, embedder=embedder,
                            read_only=False, create=False, check_vectors=False,
                            settings=settings)
