"""The store's speed-up layer: what makes a search fast, fenced off from what it answers.

`Accelerators.build` is the one entry point: `MemoryStore` builds one (`store.accel`) and
hands it to the parts that use it: `store.queries` (`MemoryQueries.nearest_held`,
`held_columns`, `session_order`), `store.rows` (reads by row id) and the store's own
`count`. Nothing outside `memory_core.store` imports this package, and retrieval reaches it
only through those parts (a test holds retrieval to it). Its parts:

* `current_dataset`: the memories table as a Lance dataset at its latest version, found
  without a LanceDB round trip (`accel.latest`), which the per-version caches check;
* `row_cache`: the tenant's rows held in memory per table version, for reads by row id;
* `vector_search_in_memory`: the vector top-m of a version whose rows (vectors included)
  the row cache holds;
* `row_reads`: reads of memory rows by their LanceDB row ids (`store.rows`);
* `session_order`: where each memory sits in its session, for session context;
* `count_cache`: `count`'s answers, kept per table version;
* `arrow_query`: LanceDB queries built on its async API and run in one hop to its loop.

With `enabled=False` (`Settings.accel`, `MEMLENS_ACCEL=0`, `MemoryStore.open(accel=False)`)
the store answers the same queries through LanceDB's own calls: no dataset shortcut (so
reads by row id are LanceDB queries by `_rowid`), no rows held, no counts or session index
kept between two calls, and the events log (`store.events`) keeps no counts either.
`arrow_query` stays on either way: it is the same LanceDB query, built through the async
API. Rankings are identical either way on an exact store
(`tests/memory_core/store/accel/test_accel_off.py`).

Two speed-ups live outside this package because of the layers: the search threads
(`memory_core/retrieval/search_threads.py`, retrieval's own concurrency, which reads
`store.queries.accelerated` and with the layer off runs BM25 and the vector search one after
the other on the caller's thread) and the quiet onnxruntime threads
(`memory_core/embedding/quiet_threads.py`, below the store).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memory_core.store.accel.count_cache import VersionCounts
from memory_core.store.accel.current_dataset import LatestDataset
from memory_core.store.accel.row_cache import RowCache
from memory_core.store.accel.session_order import SessionOrder

__all__ = ["Accelerators"]


@dataclass
class Accelerators:
    """The per-version caches of one store's memories table, on or off together (a test
    may swap a part for one built with other limits)."""

    enabled: bool
    #: the memories table's latest version and Lance dataset
    latest: LatestDataset
    #: where each memory sits in its session (`store.queries.session_order()`)
    sessions: SessionOrder
    #: the tenant's rows held per table version (vectors up to 250k rows)
    row_cache: RowCache
    #: `count`'s answers per table version
    counts: VersionCounts

    @classmethod
    def build(cls, table_of: Callable[[], Any], tenant: str, *, enabled: bool = True
              ) -> Accelerators:
        """The parts for the memories table `table_of()` returns (the store's current
        handle) and `tenant`; `enabled=False` turns every one of them off."""
        latest = LatestDataset(table_of, enabled=enabled)
        return cls(enabled=enabled, latest=latest,
                   sessions=SessionOrder(table_of(), tenant, latest.version, keep=enabled),
                   row_cache=RowCache(tenant, enabled=enabled),
                   counts=VersionCounts(enabled=enabled))
