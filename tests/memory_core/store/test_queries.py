"""The engines' queries' Arrow results as Python values (`store/queries.py`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from memory_core.store.found import vector_arrays


def test_vector_columns_become_float32_arrays_whatever_their_chunks_and_nulls() -> None:
    fixed = pa.list_(pa.float32(), 2)
    chunked = pa.chunked_array([pa.array([[1, 2], [3, 4]], type=fixed),
                                pa.array([[5, 6], [7, 8]], type=fixed).slice(1)])
    got = vector_arrays(chunked)
    assert [v.tolist() for v in got] == [[1, 2], [3, 4], [7, 8]]
    assert all(v.dtype == np.float32 for v in got)
    with_null = vector_arrays(pa.chunked_array([pa.array([[1, 2], None], type=fixed)]))
    assert with_null[0].tolist() == [1, 2] and with_null[1] is None
    # a list column of ragged vectors keeps each vector's own length (no reshape)
    ragged = vector_arrays(pa.chunked_array([pa.array([[1.0, 2.0, 3.0], [4.0]])]))
    assert [v.tolist() for v in ragged] == [[1, 2, 3], [4]]
    assert vector_arrays(pa.chunked_array([], type=fixed)) == []
