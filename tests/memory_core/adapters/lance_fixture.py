"""Golden LanceDB sources for the adapter tests: a committed JSON description of tables
(`data/<format>/tables.json`) turned into a real LanceDB database in a tmp folder.

A description is `{"tables": {name: {"columns": {column: type}, "rows": [...]}}}`; types are
"string", "int64", "float64", "timestamp" (UTC, from ISO text), "list<string>" and
"vector[N]"; a vector cell "embed" becomes `source_vector(content, N)`, content being the
row's `content` column (or the one a table's "content_column" names).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from memory_core.embedding import Embedder
from memory_core.store import MemoryStore

DATA = Path(__file__).parent / "data"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def description(fmt: str) -> dict[str, Any]:
    """The committed description of a format's golden tables (a fresh copy to change)."""
    return copy.deepcopy(json.loads((DATA / fmt / "tables.json").read_text(encoding="utf-8")))


def _vector(seed_text: str, dimension: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(seed_text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def source_vector(content: str, dimension: int) -> list[float]:
    """The vector a golden table holds for `content`: not what the test embedders compute,
    so a test can tell a kept vector from one embedded again."""
    return [float(x) for x in _vector(f"source:{content}", dimension)]


class StandIn384(Embedder):
    """A deterministic 384-d embedder that calls itself all-MiniLM-L6-v2, so stores built
    with it have the default model's id and dimension without loading the model."""

    model_id = MINILM
    dimension = 384

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.vstack([_vector(f"store:{text}", 384) for text in texts])


def vector_of(store: MemoryStore, memory_id: str) -> np.ndarray:
    """The stored vector of a memory (a test failure when it has none)."""
    vector = store.get(memory_id, with_vectors=True).vector
    if vector is None:
        raise AssertionError(f"memory {memory_id} has no vector")
    return np.asarray(vector, dtype=np.float32)


def _type(name: str) -> pa.DataType:
    vector = re.fullmatch(r"vector\[(\d+)\]", name)
    if vector:
        return pa.list_(pa.float32(), int(vector.group(1)))
    return {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(),
            "timestamp": pa.timestamp("us", tz="UTC"),
            "list<string>": pa.list_(pa.string())}[name]


def _cell(value: Any, kind: pa.DataType, content: str) -> Any:
    if value == "embed" and pa.types.is_fixed_size_list(kind):
        return source_vector(content, kind.list_size)
    if value is not None and pa.types.is_timestamp(kind):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


def build(folder: Path, tables: dict[str, Any]) -> Path:
    """Write the described tables as a LanceDB database in `folder`; returns `folder`."""
    import lancedb

    db = lancedb.connect(str(folder))
    for name, spec in tables.items():
        schema = pa.schema([pa.field(c, _type(t)) for c, t in spec["columns"].items()],
                           metadata=spec.get("schema_metadata"))
        text = spec.get("content_column", "content")
        rows = [{c: _cell(row.get(c), schema.field(c).type, row.get(text)) for c in schema.names}
                for row in spec["rows"]]
        db.create_table(name, pa.Table.from_pylist(rows, schema=schema),
                        on_bad_vectors="null")
    return folder


def build_golden(fmt: str, folder: Path) -> Path:
    """The golden database of `fmt` in `folder`."""
    return build(folder, description(fmt)["tables"])
