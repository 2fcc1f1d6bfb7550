"""Exact duplicate groups by content hash, from 8 bytes per memory instead of its hash text.

A first pass keeps a 64-bit digest of each active memory's `content_hash` (8 MB at a million
memories, where the hash strings take about 70 MB and a table of them more); digests seen
more than once are suspects. A second pass reads the hash strings again but keeps only the
suspects', and counts those exactly, so a digest collision can never merge two contents.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from memory_core.stats.counts import ValueCounts

if TYPE_CHECKING:
    import numpy as np

    from memory_core.store import MemoryStore

HASH_COLUMN = "content_hash"


@dataclass(frozen=True)
class Duplicates:
    """Groups of active memories sharing a content hash, and the memories in them."""

    groups: int
    memories: int


def digests(hashes: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A 64-bit digest of each content hash (of this process: not to be stored)."""
    import polars as pl

    return pl.Series(hashes).hash(seed=0).to_numpy()


def exact_duplicates(store: MemoryStore, seen: Iterable[np.ndarray]) -> Duplicates:
    """The duplicate groups among the active memories whose digests (`digests` of every
    active memory's hash, batch by batch) are `seen`: suspects re-read and counted exactly."""
    import numpy as np

    parts = list(seen)
    if not parts:
        return Duplicates(0, 0)
    values, counts = np.unique(np.concatenate(parts), return_counts=True)
    suspects = values[counts > 1]
    if suspects.size == 0:
        return Duplicates(0, 0)
    exact = ValueCounts()
    last = suspects.size - 1
    for hashes in store.streams.iter_column(HASH_COLUMN):
        digest = digests(hashes)
        # `suspects` is sorted (np.unique): a binary search per digest, where np.isin
        # would hash the suspects again for every batch
        suspect = suspects[np.minimum(np.searchsorted(suspects, digest), last)] == digest
        exact.add(hashes.filter(pa.array(suspect)))
    sizes = [n for n in exact.raw.values() if n > 1]
    return Duplicates(len(sizes), sum(sizes))


def duplicate_counts(store: MemoryStore) -> Duplicates:
    """The duplicate groups by content hash among the tenant's active memories."""
    return exact_duplicates(store, (digests(h) for h in store.streams.iter_column(HASH_COLUMN)))
