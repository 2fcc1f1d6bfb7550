"""`FullTextIndex` (`store.fts`): the BM25 index on the memories' `content`, made when first
needed.

A search asks `ensure()` before its BM25 query: the index is made then if it is missing and
the store is writable (a read never writes: a read-only search runs without BM25 and says so).
It is built with the tokenisation recorded in the store (`tokenisation.py`), as one write step
of the store's, and once it is known to exist no later search asks LanceDB again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from memory_core.store.queries import FTS_COLUMN
from memory_core.store.tokenisation import build_fts_index, fts_settings
from memory_core.store.write_step import WriteStep

log = logging.getLogger(__name__)


def has_fts_index(table: Any) -> bool:
    """Whether the memories `table` has a full-text index on `content`."""
    return any(getattr(i, "index_type", "") == "FTS" and FTS_COLUMN in i.columns
               for i in table.list_indices())


class FullTextIndex:
    """The full-text index of one store's memories table, given the table, the store's write
    step and whether the handle is read-only (asked at each `ensure`)."""

    def __init__(self, table: Any, *, step: WriteStep, read_only: Callable[[], bool]) -> None:
        self._table = table
        self._step = step
        self._read_only = read_only
        #: set once the index is known to exist (cleared to make `ensure` look again)
        self.ready = False

    def exists(self) -> bool:
        """Whether the table has the index now (asks LanceDB)."""
        return has_fts_index(self._table)

    def settings(self) -> dict[str, Any]:
        """The tokenizer settings the index is (to be) built with (`tokenisation.py`)."""
        return fts_settings(self._table)

    def ensure(self) -> bool:
        """Create the index if it is missing and the store is writable; whether one exists
        now."""
        if self.ready or self.exists():
            self.ready = True
            return True
        if self._read_only():
            return False  # a read never writes: search runs without BM25 (the caller says so)
        with self._step.writing("full-text index"):
            # under the lock: another process may have built it while this one waited
            self._table.checkout_latest()
            if not self.exists():
                chosen = build_fts_index(self._table, FTS_COLUMN)
                log.info("created the full-text index on %s (%s)", FTS_COLUMN, chosen)
        self.ready = True
        return True

    def build(self, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """(Re)build the index with `settings` (default: those recorded in the store, else
        `tokenisation.DEFAULT_FTS`), as one write step; returns the settings used."""
        with self._step.writing("full-text index"):
            chosen = build_fts_index(self._table, FTS_COLUMN, settings)
        self.ready = True
        return chosen
