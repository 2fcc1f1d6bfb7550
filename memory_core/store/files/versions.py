"""A table's versions as its `_versions` folder lists them, read without trusting any one.

Lance names a manifest `<u64 max - version>.manifest` (V2 naming) or `<version>.manifest`
(V1); `versions()` reads every manifest and fails on the first broken one, so the folder
is listed here instead. `latest_version_hint.json` holds the newest version Lance
committed: a hint above the newest manifest means the newest manifests are gone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.store.object_storage import is_remote

U64_MAX = 2**64 - 1
#: Manifest numbers above this are V2 names (`u64 max - version`).
V2_FLOOR = 2**63


@dataclass(frozen=True)
class Manifest:
    """One version of a table and its manifest file (relative to the table folder)."""

    version: int
    file: str


def table_uri(store_uri: str, name: str) -> str:
    """Where table `name` of the store at `store_uri` lives."""
    if is_remote(store_uri):
        return f"{store_uri.rstrip('/')}/{name}.lance"
    return str(Path(store_uri.removeprefix("file://")).expanduser() / f"{name}.lance")


def local_path(uri: str) -> Path | None:
    """The folder of a local table, None for one on object storage."""
    return None if is_remote(uri) else Path(uri)


def version_of(manifest_name: str) -> int | None:
    """The version a manifest file name stands for (None for another file)."""
    stem, _, suffix = manifest_name.rpartition(".")
    if suffix != "manifest" or not stem.isdigit():
        return None
    number = int(stem)
    return U64_MAX - number if number >= V2_FLOOR else number


def manifests(uri: str, storage_options: dict[str, str] | None = None) -> list[Manifest]:
    """Every manifest of the table at `uri`, newest first (a remote table: the versions
    Lance lists, which needs every manifest readable)."""
    folder = local_path(uri)
    if folder is None:
        import lance

        ds = lance.dataset(uri, storage_options=storage_options)
        names = [Manifest(int(v["version"]), f"_versions/{v['version']}") for v in
                 ds.versions()]
        return sorted(names, key=lambda m: -m.version)
    found = []
    versions = folder / "_versions"
    for path in versions.iterdir() if versions.is_dir() else ():
        version = version_of(path.name)
        if version is not None:
            found.append(Manifest(version, f"_versions/{path.name}"))
    return sorted(found, key=lambda m: -m.version)


def version_hint(uri: str) -> int | None:
    """The version `latest_version_hint.json` names, if the table has a readable one."""
    folder = local_path(uri)
    if folder is None:
        return None
    try:
        data: Any = json.loads((folder / "_versions" / "latest_version_hint.json").read_text())
        return int(data["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
