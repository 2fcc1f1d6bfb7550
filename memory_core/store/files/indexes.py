"""Whether each index of a table version reads: its folder is there and Lance can load it.

Lance keeps an index in `_indices/<uuid>/`; the manifest lists it even when its files are
gone, and a query that uses it then fails. Loading its statistics reads its files; a
full-text index is also asked one query, which reads its token and posting lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from memory_core.store.files.findings import LANCE_ERRORS, short
from memory_core.store.files.versions import local_path


def _probe(ds: Any, index: dict[str, Any]) -> None:
    """Read the index: its statistics, and for a full-text index one query."""
    ds.stats.index_stats(index["name"])
    if str(index.get("type", "")).lower() in ("inverted", "fts"):
        column = index["fields"][0]
        ds.to_table(full_text_query={"query": "memlens", "columns": [column]}, limit=1)


def _indexes(ds: Any) -> list[dict[str, Any]]:
    """The indexes with their uuid (their folder), which only `list_indices` gives."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return list(ds.list_indices())


def damaged_indexes(uri: str, ds: Any) -> Iterator[tuple[str, str, str, str]]:
    """(index name, column, file, what is wrong) for each index of `ds` that does not read."""
    folder = local_path(uri)
    try:
        indexes = _indexes(ds)
    except LANCE_ERRORS as exc:
        yield "", "", "_indices", f"the index list cannot be read: {short(exc)}"
        return
    for index in indexes:
        name, uuid = str(index["name"]), str(index["uuid"])
        column = str(index["fields"][0]) if index.get("fields") else ""
        file = f"_indices/{uuid}"
        kind = str(index.get("type", "index"))
        if folder is not None and not any((folder / file).glob("*")):
            yield name, column, file, (f"the {kind} index {name} on {column} has no files "
                                       f"(deleted); `memlens check --repair` rebuilds it")
            continue
        try:
            _probe(ds, index)
        except LANCE_ERRORS as exc:
            yield name, column, file, (f"the {kind} index {name} on {column} does not read: "
                                       f"{short(exc)}; `memlens check --repair` rebuilds it")
