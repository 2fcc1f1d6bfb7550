"""`MemoryLookup`: the store's reads of memories by id, as the parts that need them see them.

Reads by row id fall back on them for a row that moved (`accel/row_reads.py`), and writes
read the current records they replace (`writes.py`); both are given this protocol, which
`MemoryStore` satisfies, not the store's class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memory_core.model.records import Memory


class MemoryLookup(Protocol):
    """What reads by row id fall back on: the store's reads of memories by id."""

    def get_many(self, ids: Sequence[str], *, with_vectors: bool = False
                 ) -> dict[str, Memory]:
        """The memories of the tenant with these ids."""

    def memory_columns(self, *, with_vectors: bool = False) -> list[str]:
        """The memories table's columns."""
