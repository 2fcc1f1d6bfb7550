"""The four LanceDB and Lance names memlens uses that neither library documents, in one place.

Each one is here because its public counterpart is slower on a search's hot path or does not
exist:

- `async_table(table)`: the `AsyncTable` inside a synchronous `LanceTable` (`table._table`).
  Its query builder runs a whole query in one hop to LanceDB's event loop, where the
  synchronous `Table.search()` hops four or five times. A separate `lancedb.connect_async`
  handle would not share the synchronous table's checked-out version or its caches.
- `run(coroutine)` and `replace_run(...)`: LanceDB's background event loop
  (`lancedb.background_loop.LOOP`). Every synchronous LanceDB call waits on it without a
  timeout; `stall_watch` replaces its `run` so waits on object storage end and Ctrl-C lands.
- `take_rows(dataset, row_ids, columns)`: `LanceDataset._take_rows`, a take by row id in the
  calling thread from the very dataset version the row cache holds. The public
  `Table.take_row_ids` checks for a newer version and plans a query on LanceDB's event loop
  for each take: slower for the few dozen rows a search reads, and at whatever version is
  latest then, not the cached one.
- `serialized_manifest(dataset)`: the manifest bytes (`LanceDataset._ds`), which record the
  Lance release that wrote a table; no public call names the writer.

`missing()` lists the ones an installed release no longer has; a test runs it
(`tests/memory_core/store/test_lance_private.py`), so an upgrade that removes one fails there
with the name, not deep inside a search.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import pyarrow as pa

from memory_core.model.errors import StoreLocationError


def _loop() -> Any:
    from lancedb.background_loop import LOOP

    return LOOP


def async_table(table: Any) -> Any:
    """The `lancedb.table.AsyncTable` behind a synchronous LanceDB table."""
    from lancedb.table import AsyncTable

    inner = getattr(table, "_table", None)
    if not isinstance(inner, AsyncTable):
        raise StoreLocationError(
            f"this LanceDB table ({type(table).__name__}) has no async table to query; "
            f"install the lancedb release pyproject.toml names (pip install -e .)")
    return inner


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run `coroutine` on LanceDB's background event loop and return its result."""
    return _loop().run(coroutine)


def event_loop() -> Any:
    """The asyncio loop LanceDB's background thread runs (`LOOP.loop`)."""
    return _loop().loop


def replace_run(run_on: Callable[[Any], Any]) -> None:
    """Make every synchronous LanceDB call wait for its coroutine with `run_on(coroutine)`
    instead of the loop's own `run` (which waits without a timeout), once per process."""
    loop = _loop()
    if "run" not in vars(loop):
        setattr(loop, "run", run_on)  # noqa: B010 (mypy: a method)


def take_rows(dataset: Any, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table:
    """`columns` of the rows of a `lance.LanceDataset` at these row ids, in their order; an
    error when one is gone."""
    got: pa.Table = dataset._take_rows(list(row_ids), columns=list(columns))
    return got


def serialized_manifest(dataset: Any) -> bytes | None:
    """The serialized manifest of a `lance.LanceDataset`'s version, or None when this pylance
    does not give it."""
    serialize = getattr(getattr(dataset, "_ds", None), "serialized_manifest", None)
    return bytes(serialize()) if callable(serialize) else None


def missing(table: Any) -> list[str]:
    """The private names above that the installed lancedb and pylance lack, for a synchronous
    LanceDB `table` (with at least one row)."""
    gone = []
    try:
        async_table(table)
    except StoreLocationError:
        gone.append("lancedb LanceTable._table (an AsyncTable)")
    loop = _loop()
    if not callable(getattr(type(loop), "run", None)) or getattr(loop, "loop", None) is None:
        gone.append("lancedb.background_loop.LOOP.run / .loop")
    dataset = table.to_lance()
    if not callable(getattr(dataset, "_take_rows", None)):
        gone.append("lance.LanceDataset._take_rows")
    try:
        manifest = serialized_manifest(dataset)
    except (RuntimeError, OSError, ValueError):
        manifest = None
    if not manifest:
        gone.append("lance.LanceDataset._ds.serialized_manifest")
    return gone
