"""Canonical JSON text of whole vector columns, without a Python call per float.

`canonical.memory_doc(..., with_vector=True)` writes each float32 as the shortest decimal that
reads back to it (`canonical.f32`), in Python's float notation. Doing that float by float is
a Python call per float, tens of millions of them for a large store. polars' float32 -> string
cast writes the same shortest digits in Rust, many times faster; it differs from Python's
notation only for tiny and huge magnitudes (`0.00001` vs `1e-05`), which are rewritten in
Python. The result is byte-identical to `canonical_json([f32(x) for x in vector])`.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from memory_core.model.canonical import f32

#: polars and Python agree on the notation of magnitudes in [1e-4, 1e9) and of zero.
_SAME_FROM, _SAME_BELOW = 1e-4, 1e9
_NULL_VECTOR = '"vector":null'


def vector_json(column: pa.Array | pa.ChunkedArray) -> list[str | None]:
    """The canonical JSON text (`[0.1,-0.02,...]`) of each vector of a fixed-size-list
    column of floats; None for a null vector.

    >>> import pyarrow as pa
    >>> vector_json(pa.array([[0.1, 1.0, 1e-05], None], pa.list_(pa.float32(), 3)))
    ['[0.1,1.0,1e-05]', None]
    """
    import polars as pl

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if len(column) == 0:
        return []
    size = column.type.list_size
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    present = column.filter(pa.array(valid)) if not valid.all() else column
    values = present.flatten().cast(pa.float32()).to_numpy(zero_copy_only=False)
    text = pl.Series(values).cast(pl.String)
    magnitude = np.abs(values)
    redo = np.flatnonzero(((magnitude < _SAME_FROM) & (magnitude > 0))
                          | (magnitude >= _SAME_BELOW))
    if len(redo):
        fixed = [json.dumps(f32(x)) for x in values[redo].tolist()]
        text = text.scatter(redo, fixed)
    joined = text.reshape((len(present), size)).arr.join(",").to_arrow().to_pylist()
    rendered = iter(joined)
    return [f"[{next(rendered)}]" if ok else None for ok in valid.tolist()]


def splice_vector(line: str, vector: str | None) -> str:
    """Put `vector` (JSON text) in place of the top-level `"vector":null` of a canonical
    memory line. The top-level key is the last `"vector":` in the line: only `why` (a string
    or null, whose quotes are escaped) sorts after it."""
    if vector is None:
        return line
    at = line.rfind(_NULL_VECTOR)
    if at < 0:
        raise ValueError("the line has no top-level vector:null to replace")
    return line[:at] + '"vector":' + vector + line[at + len(_NULL_VECTOR):]
