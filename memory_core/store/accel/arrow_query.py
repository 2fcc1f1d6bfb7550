"""LanceDB queries built on its async API and run in one hop to its event loop.

LanceDB's synchronous `Table.search()` wraps its async table: building and running one query
crosses from the calling thread to LanceDB's background event loop four or five times (the
table schema twice, the query, each result batch), and each crossing is a thread hand-off
that waits for a core. Built with the async query builder and collected in one run on that
loop, the same query crosses once, with the same rows in the same order
(`tests/memory_core/store/accel/test_arrow_query.py`).

The async table and the loop are reached through `lance_private`, the one module that uses
names LanceDB does not document.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from memory_core.store import lance_private


def query(table: Any) -> Any:
    """`table.query()` of LanceDB's async API (an `AsyncQuery`: `where` pre-filters, no
    limit unless set) for a table opened with the synchronous API."""
    return lance_private.async_table(table).query()


def collect(built: Any) -> pa.Table:
    """Run an async query built by `query` and return all its rows."""
    result: pa.Table = lance_private.run(built.to_arrow())
    return result
