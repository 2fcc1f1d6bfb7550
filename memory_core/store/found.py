"""`Found`: one row a top-m query of the memories found, and the vectors of a query's result.

Shared by the store's queries (`queries.py`) and the vector search over rows held in memory
(`accel/vector_search_in_memory.py`), which answer with the same rows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa


class Found(NamedTuple):
    """One row a top-m query found: its memory id, the engine's score and its LanceDB row
    id (so that later reads of it skip the id look-up: `store.rows`); its content and vector
    when the query was asked for them (session context scores with them, and taking them
    with the query costs a millisecond where reading them again costs ten)."""

    id: str
    score: float
    row_id: int
    content: str | None = None
    vector: Any = None  # a float32 numpy array


def vector_arrays(column: pa.ChunkedArray) -> list[Any]:
    """Each vector of an Arrow vector column as a float32 numpy array (None for none): one
    conversion of the whole column, not a Python list per vector."""
    column = column.combine_chunks()
    if not len(column):
        return []
    if column.null_count == 0 and pa.types.is_fixed_size_list(column.type):
        return list(np.asarray(column.flatten().to_numpy(zero_copy_only=False),
                               dtype=np.float32).reshape(len(column), -1))
    return [None if v is None else np.asarray(v, dtype=np.float32)
            for v in column.to_pylist()]
