"""Which index each column of the memories table gets, with which parameters, and why.

`memlens index` builds what this module decides and prints its reasons; `memlens stats` and the
Overview page compare a store against it. The vector rule, set by measurement on clustered
384-d vectors on a small machine (docs/guides/scaling.md):

* below `VECTOR_THRESHOLD` (20,000) vectors, no index: exact search is exact and fast enough;
* up to `HNSW_MAX_VECTORS` (250,000), IVF_HNSW_SQ in one partition: recall@10 0.96 at 100k;
* above it, IVF_SQ in LanceDB's default partitions: at a million vectors IVF_HNSW_SQ's graph
  takes far too long to build, and IVF_PQ builds slower than IVF_SQ to reach a recall of only
  0.62 even with a refine factor of 10.

Every vector search (`store.queries.nearest`, `accel/vector_search_in_memory.py`, the recall
check) probes `QUERY_NPROBES` partitions and re-ranks `QUERY_REFINE` times the candidates it
needs by their full vectors: IVF_SQ's recall@10 at a million went from 0.952 (its 8-bit
distances) to 1.0 that way. HNSW searches a beam of `EF_PER_CANDIDATE` times those candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Rows with vectors from which an ANN index pays off over exact search.
VECTOR_THRESHOLD = 20_000
VECTOR_COLUMN = "vector"
VECTOR_KIND = "IVF_HNSW_SQ"
LARGE_VECTOR_KIND = "IVF_SQ"
#: Above this many vectors an HNSW graph costs too long to build on a small machine.
HNSW_MAX_VECTORS = 250_000
#: IVF partitions every vector search probes.
QUERY_NPROBES = 10
#: Candidates re-ranked by their full vectors, as a multiple of those asked for.
QUERY_REFINE = 2
#: The HNSW search's beam (`ef`) as a multiple of the candidates it re-ranks. Left to its
#: default, a Lance dataset query searched a narrower beam than LanceDB's own query (recall@10
#: against exact search under a status filter 0.96 against 0.995 at 3,000 indexed
#: memories). At 100,000, under the default filter, the top 10 held 0.823 of exact search's
#: for LanceDB's default, 0.833 for Lance's, 0.882 with ef 200 (2 x the 100 candidates) in
#: the same time, 0.928 with ef 300 (a little slower).
EF_PER_CANDIDATE = 2

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
    LARGE_VECTOR_KIND: "approximate nearest neighbours for vector search (see `why` below)",
}


@dataclass(frozen=True)
class VectorPlan:
    """The vector index a store of `vector_rows` vectors should have, and why."""

    vector_rows: int
    threshold: int
    build: bool
    kind: str
    reason: str


def vector_kind(vector_rows: int) -> str:
    """IVF_HNSW_SQ up to `HNSW_MAX_VECTORS` vectors, IVF_SQ above."""
    return VECTOR_KIND if vector_rows <= HNSW_MAX_VECTORS else LARGE_VECTOR_KIND


def vector_plan(vector_rows: int, *, threshold: int = VECTOR_THRESHOLD,
                force: bool = False) -> VectorPlan:
    """Whether a vector index should be built over `vector_rows` vectors, and which."""
    kind = vector_kind(vector_rows)
    if vector_rows and (force or vector_rows >= threshold):
        why = ("forced (--force-vector)" if force and vector_rows < threshold else
               f"{vector_rows:,} vectors >= the threshold {threshold:,}")
        if kind == VECTOR_KIND:
            how = (f"{kind} (one partition: an HNSW graph, quick to build up to "
                   f"{HNSW_MAX_VECTORS:,} vectors)")
        else:
            how = (f"{kind} ({vector_rows:,} > {HNSW_MAX_VECTORS:,} vectors, where an HNSW "
                   f"graph takes too long to build; 8-bit vectors in partitions)")
        reason = (f"{why}: exact search would read every vector per query; {how}; searches "
                  f"probe {QUERY_NPROBES} partitions and re-rank {QUERY_REFINE}x the "
                  f"candidates by their full vectors"
                  + (f", found in a beam of {EF_PER_CANDIDATE}x those candidates"
                     if kind == VECTOR_KIND else ""))
        return VectorPlan(vector_rows, threshold, True, kind, reason)
    reason = (f"{vector_rows:,} vectors < the threshold {threshold:,}: exact search reads them "
              f"all and is both exact and fast at this size")
    return VectorPlan(vector_rows, threshold, False, kind, reason)


def beam(k: int) -> int:
    """The HNSW search's beam (`ef`) for a top-k query: `EF_PER_CANDIDATE` x the
    `QUERY_REFINE` x k candidates it re-ranks."""
    return EF_PER_CANDIDATE * QUERY_REFINE * k


def tuned(query: Any, k: int) -> Any:
    """A LanceDB top-k vector query with the rule's search parameters (ignored by exact
    search)."""
    return query.nprobes(QUERY_NPROBES).refine_factor(QUERY_REFINE).ef(beam(k))
