"""The vector top-m of a version whose rows the row cache holds, vectors included.

`store.queries.nearest` asks LanceDB for the top-m under the filter's predicate and has it re-rank
`QUERY_REFINE` x m index candidates by their full vectors. A good part of that query is the
re-ranking's reads of the full vectors from the Lance file, and another the pre-filter (the
tenant and status bitmaps turned into a mask of the rows the index may return). When the
row cache (`row_cache.py`) holds the
latest version's rows with their vectors, both can be had for less, for the same ranking
(to within what an approximate index gives: see below):

* the index is asked for the `QUERY_REFINE` x m candidates without re-ranking, and they are
  re-ranked here by the exact cosine of the vectors held (what LanceDB's re-ranking computes
  from the file; equal to float32 rounding). Without an index LanceDB's search is exact and
  its own distances rank;
* a condition every row of that version satisfies is not pushed down: the tenant's, when
  every row is the tenant's, and the status's, when every status that occurs is one the
  filter asks for (what the held rows say of the version, `HeldRows.always`). A single-tenant
  store with only active memories then searches without a pre-filter; any other condition
  stays in the predicate;
* in a single-tenant store whose filter asks for statuses at least half of the rows have
  (active ones, with a few archived), the status is checked on the held rows of the index's
  candidates, of which proportionally more are asked for, instead of pushed down
  (`_post_status`).

The query runs on the Lance dataset of exactly the version the rows were held at, so a write
after the check (another tenant's rows, an archived memory) cannot reach a query that left
its condition out; and every row it returns must be held under the same memory id. When
the cache does not hold the version, or a returned row is not held, `nearest_held` answers
None and the caller runs `store.queries.nearest`.

Without a vector index the hits are LanceDB's, bit for bit. With one, the candidates are
the index's, searched with the beam LanceDB's query has (`index_rule.beam`), re-ranked by the
same exact cosines; where the status is checked on the candidates they can differ from
LanceDB's, with the same recall against exact search (docs/decisions/0003-row-cache.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from memory_core.model.filters import Condition, Filter
from memory_core.store.found import Found, vector_arrays
from memory_core.store.index_rule import QUERY_NPROBES, QUERY_REFINE, beam

if TYPE_CHECKING:
    from memory_core.store.accel import Accelerators
    from memory_core.store.accel.row_cache import HeldRows


def left_in(flt: Filter, tenant: str, always: Callable[[Condition], bool]
            ) -> list[Condition]:
    """The conditions of `flt` but those `always(condition)` says every row satisfies."""
    return [c for c in flt.conditions(tenant) if not always(c)]


def predicate(conditions: Sequence[Condition]) -> str | None:
    """The SQL predicate of `conditions`; None when there are none."""
    return " AND ".join(c.sql() for c in conditions) or None


def pushed_down(flt: Filter, tenant: str, always: Callable[[Condition], bool]) -> str | None:
    """The predicate of `flt` without the conditions `always(condition)` says every row
    satisfies; None when no condition is left."""
    return predicate(left_in(flt, tenant, always))


#: A status condition that admits at least this share of the rows is checked on the index's
#: candidates instead of pushed down (see `_post_status`).
POST_FILTER_SHARE = 0.5


def _nearest(query: np.ndarray, k: int, m: int, *, indexed: bool) -> dict[str, object]:
    """The Lance `nearest` of k candidates for a top-m query; with an index, searched with
    the beam LanceDB's query of the top m has (`index_rule.beam`)."""
    if not indexed:
        return {"column": "vector", "q": query, "k": k, "metric": "cosine"}
    return {"column": "vector", "q": query, "k": k, "metric": "cosine",
            "nprobes": QUERY_NPROBES, "ef": max(beam(m), k)}


def _post_status(held: HeldRows, kept: Sequence[Condition]) -> Condition | None:
    """The status condition to check on the index's candidates rather than push down, if
    it is the only one left and admits at least `POST_FILTER_SHARE` of the rows.

    The index then searches without a mask, which is faster than pushing the status down
    (at 100,000 memories with 5% archived), with the same recall against exact search
    (0.877 of the top 10, 0.805 of the top 50; LanceDB's own query 0.825 and 0.756). When
    fewer than m of the candidates are admitted (the archived memories are the nearest ones),
    the pre-filtered query answers."""
    if not held.vector_indexed or len(kept) != 1 or kept[0].column != "status":
        return None
    return kept[0] if held.share(kept[0]) >= POST_FILTER_SHARE else None


def nearest_held(accel: Accelerators, tenant: str, vector: Sequence[float], flt: Filter,
                 m: int) -> list[Found] | None:
    """The top-m memories of `tenant` under `flt` by cosine similarity (the score), best
    first, from the held rows' version; None when the row cache (`accel.row_cache`) cannot
    answer for the latest version."""
    dataset = accel.latest.current()
    if dataset is None or m <= 0:
        return None
    held = accel.row_cache.held(int(dataset.version))
    if held is None or "vector" not in held.columns or held.vector_indexed is None:
        return None
    query = np.asarray(vector, dtype=np.float32)
    indexed = bool(held.vector_indexed)
    kept = left_in(flt, tenant, held.always)
    post = _post_status(held, kept)
    k = QUERY_REFINE * m if indexed else m
    if post is not None:  # about k of the candidates are admitted
        k = math.ceil(k / held.share(post))
    try:
        table = dataset.to_table(
            columns=["id", "_distance"], prefilter=True, with_row_id=True,
            filter=None if post is not None else predicate(kept),
            nearest=_nearest(query, k, m, indexed=indexed))
    except Exception:  # noqa: BLE001 - a fast path: `store.queries.nearest` is the answer
        return None
    ids = table["id"].to_pylist()
    row_ids = table["_rowid"].to_numpy()
    rows = _held_rows(held, ids, row_ids, with_vectors=indexed,
                      status=post is not None)
    if rows is None:
        return None
    vectors, statuses = rows
    if not indexed:  # exact search: LanceDB's distances and order are exact
        return [Found(i, 1.0 - float(d), int(r)) for i, d, r in zip(
            ids, table["_distance"].to_pylist(), row_ids.tolist(), strict=True)]
    admitted = list(range(len(ids)))
    if post is not None:
        admitted = [i for i in admitted if post.holds(statuses[i])]
        if len(admitted) < m and len(ids) == k:
            return None  # too few admitted among the candidates: the pre-filter answers
    norms = np.linalg.norm(vectors, axis=1) * (np.linalg.norm(query) or 1.0)
    cosines = vectors @ query / np.where(norms > 0, norms, 1.0)
    best = sorted(admitted, key=lambda i: (-float(cosines[i]), ids[i]))[:m]
    return [Found(ids[i], float(cosines[i]), int(row_ids[i])) for i in best]


def _held_rows(held: HeldRows, ids: list[str], row_ids: np.ndarray, *, with_vectors: bool,
               status: bool) -> tuple[np.ndarray, list[str]] | None:
    """The held vectors (an empty matrix unless `with_vectors`) and statuses (empty unless
    `status`) of the rows the query returned, in its order; None unless every row is held
    under the same memory id, with a vector. So the rows are the tenant's (held rows are no
    other's), and a table dropped and made again since, whose version numbers start over,
    cannot pass for the held one."""
    order = np.argsort(row_ids, kind="stable")
    columns = ["id", *(["vector"] if with_vectors else []), *(["status"] if status else [])]
    taken = held.take(row_ids[order].tolist(), columns)
    if taken["id"].to_pylist() != [ids[i] for i in order.tolist()]:
        return None
    statuses: list[str] = []
    if status:
        statuses = [""] * len(ids)
        for at, value in zip(order.tolist(), taken["status"].to_pylist(), strict=True):
            statuses[at] = value
    if not with_vectors:
        return np.empty((0, 0), dtype=np.float32), statuses
    vectors = vector_arrays(taken["vector"])
    if any(v is None for v in vectors):
        return None
    dimension = len(vectors[0]) if vectors else 0
    matrix = np.empty((len(row_ids), dimension), dtype=np.float32)
    if vectors:
        matrix[order] = np.stack(vectors)
    return matrix, statuses
