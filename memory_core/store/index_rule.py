"""Which index each column of the memories table gets, with which parameters, and why.

`memlens index` builds what this module decides and prints its reasons; `memlens stats` and the
Overview page compare a store against it. The vector rule was set by measurement (README.md,
"A million memories"): exact search below `VECTOR_THRESHOLD` vectors, above it IVF_HNSW_SQ
with the partition count of `vector_partitions`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Rows with vectors from which an ANN index pays off over exact search.
VECTOR_THRESHOLD = 20_000
VECTOR_COLUMN = "vector"
VECTOR_KIND = "IVF_HNSW_SQ"
#: Vectors per IVF partition the rule aims at (see `vector_partitions`).
PARTITION_ROWS = 250_000

#: Filter columns and their scalar index kinds (names as LanceDB's index statistics give them).
SCALAR_INDEXES: dict[str, str] = {
    "tenant": "BITMAP",
    "status": "BITMAP",
    "memory_type": "BITMAP",
    "importance": "BITMAP",
    "embedding_status": "BITMAP",
    "id": "BTREE",
    "project": "BTREE",
    "repo": "BTREE",
    "agent": "BTREE",
    "session_id": "BTREE",
    "created_at": "BTREE",
    "tags": "LABEL_LIST",
}

#: Why a column gets an index of each kind, in words.
KIND_REASONS: dict[str, str] = {
    "BITMAP": "a filter with a handful of values: one bitmap per value",
    "BTREE": "a filter with many values (ids, names, times): a B-tree for = and ranges",
    "LABEL_LIST": "a list column: finds the memories that carry a tag",
    "FTS": "BM25 full-text search over the content",
    VECTOR_KIND: "approximate nearest neighbours for vector search (see `why` below)",
}


@dataclass(frozen=True)
class VectorPlan:
    """The vector index a store of `vector_rows` vectors should have, and why."""

    vector_rows: int
    threshold: int
    build: bool
    partitions: int
    reason: str


def vector_partitions(vector_rows: int) -> int:
    """IVF partitions for `vector_rows` vectors: one per `PARTITION_ROWS`, at least one.

    Each partition holds its own HNSW graph; a search walks the graphs of the partitions
    nearest to the query. Few large partitions keep recall high (a neighbour rarely sits in a
    partition that is not probed) while the graphs keep each walk logarithmic in its size.
    """
    return max(1, round(vector_rows / PARTITION_ROWS))


def vector_plan(vector_rows: int, *, threshold: int = VECTOR_THRESHOLD,
                force: bool = False) -> VectorPlan:
    """Whether a vector index should be built over `vector_rows` vectors, and with what."""
    partitions = vector_partitions(vector_rows)
    if vector_rows and (force or vector_rows >= threshold):
        why = ("forced (--force-vector)" if force and vector_rows < threshold else
               f"{vector_rows:,} vectors >= the threshold {threshold:,}")
        reason = (f"{why}: exact search would read every vector per query; "
                  f"{VECTOR_KIND} in {partitions} partition{'s' * (partitions != 1)} "
                  f"(one per {PARTITION_ROWS:,} vectors)")
        return VectorPlan(vector_rows, threshold, True, partitions, reason)
    reason = (f"{vector_rows:,} vectors < the threshold {threshold:,}: exact search reads them "
              f"all and is both exact and fast at this size")
    return VectorPlan(vector_rows, threshold, False, partitions, reason)
