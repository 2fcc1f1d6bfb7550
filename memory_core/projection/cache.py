"""`ProjectionCache`: computed maps on disk, so reopening a map is instant.

An entry is a folder named by its key (`cache_key`: sha256 of the store, tenant, memories
table version, filter, parameters and model), holding the layout (`layout.parquet`), the
fitted UMAP (`reducer.pkl`) and what else the `Projection` says (`meta.json`, with the
reducer's sha256). It is written in a private temporary folder and renamed into place, so
no reader (another process, another page session) ever sees half an entry; an entry that
fails to read (truncated, edited, a checksum that differs) counts as a miss and is
rewritten. Any write to the memories table changes its version, so a map computed before it
is never served after it. Entries are pruned to the `keep` most recently used.

The reducer is a pickle: it is only ever read from this cache's own folder, which memlens
writes, under the user's cache directory (MEMLENS_MODEL_CACHE).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import re
import shutil
import time
import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.model.errors import MapError
from memory_core.model.filters import Filter
from memory_core.model.untrusted import shown
from memory_core.projection.params import MapParams

if TYPE_CHECKING:
    import polars as pl

log = logging.getLogger(__name__)

LAYOUT = "layout.parquet"
REDUCER = "reducer.pkl"
META = "meta.json"
#: Changes when an entry's layout or contents change meaning: older entries then miss.
FORMAT = 1
#: Temporary and discarded folders older than this (seconds) belong to dead processes.
STALE_S = 3600.0
_CHUNK = 1 << 20
_KEY = re.compile(r"[0-9a-f]{64}")
#: The `Filter` fields holding lists of values, whose order does not change the selection.
_LISTS = ("project", "repo", "agent", "session_id", "memory_type", "tags", "status",
          "importance", "embedding_status", "ids")


def _checked(key: str) -> str:
    """`key` if it is a cache key (64 lowercase hex digits), else `MapError`: entries are
    folders named by their key, and nothing else in the cache folder is ever touched."""
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise MapError(f"a map cache key is 64 hex digits (a sha256), got {shown(key)}")
    return key


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def canonical_filter(filter: Filter | None, tenant: str) -> str:
    """`filter`'s predicate for `tenant` with every list of values sorted and without
    repeats: two filters selecting the same memories the same way get the same text
    (`Filter(project="a")` and `Filter(project=["a", "a"])`, say)."""
    flt = filter or Filter()
    changes: dict[str, Any] = {}
    for name in _LISTS:
        value = getattr(flt, name)
        if isinstance(value, list | tuple | set | frozenset) and all(
                isinstance(v, str) for v in value):
            changes[name] = sorted(set(value))
    return replace(flt, **changes).to_predicate(tenant)


def cache_key(*, store_uri: str, tenant: str, version: int, filter: Filter | None,
              params: MapParams, model_id: str) -> str:
    """The sha256 naming a map: the store (its path resolved), tenant, memories table
    version, filter (`canonical_filter`), parameters, embedding model, and the entry
    `FORMAT` and `engine.algorithm()` (umap-learn's version: another may lay out
    differently)."""
    from memory_core.model.config import store_key
    from memory_core.projection.engine import algorithm

    parts = {"store": store_key(store_uri), "tenant": tenant, "version": int(version),
             "filter": canonical_filter(filter, tenant), "params": params.to_dict(),
             "model": model_id, "format": FORMAT, "umap": algorithm()}
    text = json.dumps(parts, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, eq=False)
class CachedMap:
    """One entry read back: the layout frame, the meta data written with it, and the path
    of its fitted model (loaded by `load_reducer` when needed)."""

    frame: pl.DataFrame
    meta: dict[str, Any]
    reducer_path: Path


class ProjectionCache:
    """Maps on disk under `folder` (default `Settings.from_env().map_cache`), at most `keep`
    entries."""

    def __init__(self, folder: Path | str, *, keep: int = 20) -> None:
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise MapError(f"a map cache keeps at least 1 entry, got keep={keep!r}")
        self.folder = Path(folder).expanduser()
        self.keep = keep

    @classmethod
    def default(cls) -> ProjectionCache:
        """The cache under MEMLENS_MODEL_CACHE (`Settings.map_cache`), read now."""
        from memory_core.model.config import Settings

        return cls(Settings.from_env().map_cache)

    def __repr__(self) -> str:
        return f"ProjectionCache({str(self.folder)!r}, keep={self.keep})"

    # ------------------------------------------------------------------ reads
    def entries(self) -> list[Path]:
        """The complete entries, most recently used first."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in self.folder.iterdir():
            # only folders named like a key: whatever else is in the folder is not ours
            if not _KEY.fullmatch(path.name) or not path.is_dir():
                continue
            try:
                found.append((path.stat().st_mtime, path.name, path))
            except FileNotFoundError:  # pruned by another process meanwhile
                continue
        return [p for _, _, p in sorted(found, reverse=True)]

    def get(self, key: str) -> CachedMap | None:
        """The entry under `key`, or None when there is none or it cannot be read (a
        damaged entry is logged and left for `put` to replace)."""
        import polars as pl

        entry = self.folder / _checked(key)
        if not entry.is_dir():
            return None
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            if not isinstance(meta, dict) or meta.get("key") != key or meta.get(
                    "format") != FORMAT:
                raise ValueError("its meta data is not this key's")
            frame = pl.read_parquet(entry / LAYOUT)
            if frame.height != meta.get("rows") or _sha256_file(
                    entry / REDUCER) != meta.get("reducer_sha256"):
                raise ValueError("its layout or fitted model does not match its checksum")
        except FileNotFoundError:
            return None  # pruned or replaced by another process meanwhile: a miss
        except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
            log.warning("ignoring the damaged map cache entry %s (%s); it is recomputed",
                        entry, exc)
            return None
        try:
            os.utime(entry)  # most recently used: pruned last
        except OSError:
            pass
        return CachedMap(frame=frame, meta=meta, reducer_path=entry / REDUCER)

    @staticmethod
    def load_reducer(path: Path) -> Any:
        """The fitted model pickled at `path` (a file of this cache: never a foreign one),
        loaded with numba's cache in memlens' cache folder (`engine.unpickle`)."""
        from memory_core.projection.engine import unpickle

        try:
            with path.open("rb") as handle:
                model = unpickle(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError,
                ImportError) as exc:
            raise MapError(
                f"the fitted model of this map is gone from the cache or unreadable "
                f"({path}: {exc}); compute the map again to place queries on it") from exc
        return model

    # ----------------------------------------------------------------- writes
    def put(self, key: str, frame: pl.DataFrame, reducer: Any, meta: dict[str, Any]) -> Path:
        """Store an entry under `key` (replacing a damaged one) and prune; returns its
        folder. Written to a private temporary folder first, then renamed into place."""
        _checked(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._sweep()
        tmp = self.folder / f".tmp-{key[:16]}-{uuid.uuid4().hex}"
        tmp.mkdir()
        try:
            frame.write_parquet(tmp / LAYOUT)
            with (tmp / REDUCER).open("wb") as handle:
                pickle.dump(reducer, handle, protocol=pickle.HIGHEST_PROTOCOL)
            full = {**meta, "key": key, "format": FORMAT, "rows": frame.height,
                    "reducer_sha256": _sha256_file(tmp / REDUCER)}
            (tmp / META).write_text(json.dumps(full, sort_keys=True, default=str),
                                    encoding="utf-8")
            self._move_in(tmp, self.folder / key)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        self.prune()
        return self.folder / key

    def _move_in(self, tmp: Path, entry: Path) -> None:
        """Rename `tmp` to `entry`; an entry already there (damaged, or just written by
        another process) is moved aside first, then removed."""
        try:
            tmp.rename(entry)
            return
        except OSError:
            if not entry.exists():
                raise
        self._discard(entry)
        try:
            tmp.rename(entry)
        except OSError:
            if not entry.exists():
                raise
            # another process put its (equal) entry in meanwhile: keep that one

    def _discard(self, entry: Path) -> None:
        """Remove an entry without a reader ever seeing it half gone: renamed aside first."""
        trash = self.folder / f".trash-{uuid.uuid4().hex}"
        try:
            entry.rename(trash)
        except FileNotFoundError:
            return
        shutil.rmtree(trash, ignore_errors=True)

    def prune(self) -> list[str]:
        """Remove all but the `keep` most recently used entries; returns the keys removed."""
        removed = []
        for entry in self.entries()[self.keep:]:
            self._discard(entry)
            removed.append(entry.name)
        return removed

    def _sweep(self) -> None:
        """Remove the temporary and discarded folders processes left when they died."""
        now = time.time()
        for path in self._hidden():
            try:
                if now - path.stat().st_mtime > STALE_S:
                    shutil.rmtree(path, ignore_errors=True)
            except FileNotFoundError:
                continue

    def _hidden(self) -> Iterator[Path]:
        for path in self.folder.iterdir():
            if path.name.startswith((".tmp-", ".trash-")):
                yield path

    # ------------------------------------------------- the memories it holds
    def folders(self) -> list[Path]:
        """Every folder that may hold a map: the entries, and the temporary and discarded
        folders of writers (a `kill -9` leaves them until `STALE_S` has passed)."""
        if not self.folder.is_dir():
            return []
        return [*self.entries(), *(p for p in self._hidden() if p.is_dir())]

    @staticmethod
    def owner(folder: Path) -> tuple[str, str] | None:
        """(store key, tenant) of the map in `folder` (from its meta data), or None when its
        meta data cannot be read (a temporary folder, a damaged entry)."""
        from memory_core.model.config import store_key

        try:
            meta = json.loads((folder / META).read_text(encoding="utf-8"))
            return store_key(str(meta["store"])), str(meta["tenant"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @staticmethod
    def lists(folder: Path, ids: Collection[str]) -> bool:
        """Whether the layout in `folder` has a row for one of `ids` (False when it has no
        readable layout)."""
        import polars as pl

        try:
            column = pl.read_parquet(folder / LAYOUT, columns=["id"])["id"]
        except (OSError, pl.exceptions.PolarsError):
            return False
        return bool(column.is_in(list(ids)).any())

    def of_store(self, store_uri: str, tenant: str | None = None) -> list[Path]:
        """The folders written for the store at `store_uri` (and `tenant`, when given), and
        those whose owner cannot be read."""
        from memory_core.model.config import store_key

        key = store_key(store_uri)
        out = []
        for folder in self.folders():
            owner = self.owner(folder)
            if owner is None or (owner[0] == key and tenant in (None, owner[1])):
                out.append(folder)
        return out

    def forget(self, store_uri: str, ids: Collection[str]) -> list[Path]:
        """Remove what a purge of `ids` leaves stale: every map of the store (its memories
        table has a new version, so none of them is ever served again) and any folder
        without readable meta data whose layout lists one of `ids`. Returns the folders."""
        removed = []
        for folder in self.of_store(store_uri):
            if self.owner(folder) is None and not self.lists(folder, ids):
                continue
            if folder.name.startswith(".trash-"):
                shutil.rmtree(folder, ignore_errors=True)
            else:
                self._discard(folder)
            removed.append(folder)
        return removed
