"""Whole-column vector JSON equals the record-by-record canonical form, float for float."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.exchange.vector_text import splice_vector, vector_json
from memory_core.model.canonical import f32

floats32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | st.lists(floats32, min_size=4, max_size=4), min_size=1,
                max_size=20))
def test_vector_json_matches_f32_per_value(vectors: list[list[float] | None]) -> None:
    column = pa.array(vectors, pa.list_(pa.float32(), 4))
    expected = [None if v is None else json.dumps([f32(x) for x in v], separators=(",", ":"))
                for v in vectors]
    assert vector_json(column) == expected


def test_awkward_magnitudes() -> None:
    values = np.array([0.0, -0.0, 1.0, -3.0, 1e-4, 9.999e-5, 1e-7, 3e-45, 1.5e9, 1e16,
                       3.4e38, 123456.79, 0.1, 16777217.0], dtype=np.float32)
    column = pa.FixedSizeListArray.from_arrays(pa.array(values), len(values))
    assert vector_json(column) == [json.dumps([f32(x) for x in values], separators=(",", ":"))]


def test_splice_replaces_the_top_level_vector_only() -> None:
    line = '{"metadata":{"vector":null},"vector":null,"why":"a \\"vector\\":null"}'
    assert splice_vector(line, "[1.0]") == (
        '{"metadata":{"vector":null},"vector":[1.0],"why":"a \\"vector\\":null"}')
    assert splice_vector(line, None) == line
