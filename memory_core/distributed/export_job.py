"""Exports on Ray: the memory lines rendered in Ray workers, written here in id order.

The workers read the memories table at the snapshot's version and render each row to its
canonical line with the in-process code (`render_memories`); Ray sorts the lines by id and
this process streams them into the same `ExportWriter`, edges, events and audit rows
following as in-process (they are a small share of an export). So the body, and its
sha256, is byte-identical to an in-process export of the same snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from memory_core.distributed.lance_source import lance_source
from memory_core.exchange.store_lines import CHUNK_ROWS, Progress, memory_columns, render_memories
from memory_core.store import MemoryStore, Snapshot


class _RenderLines:
    """A Ray Data batch function: a block of memory rows -> their (id, line) rows."""

    def __init__(self, with_vectors: bool) -> None:
        self.with_vectors = with_vectors

    def __call__(self, batch: pa.Table) -> pa.Table:
        lines = render_memories(batch, with_vectors=self.with_vectors)
        return pa.table({"id": pa.array([i for i, _ in lines], pa.string()),
                         "line": pa.array([line for _, line in lines], pa.large_string())})


def ray_memory_lines(store: MemoryStore, snap: Snapshot, where: str, with_vectors: bool,
                     progress: Progress | None) -> Iterator[tuple[str, str]]:
    """(id, canonical line) of each memory matching `where`, rendered on Ray, sorted by id:
    the Ray `MemorySource` of `export_store` (`memory_source=ray_memory_lines`). Needs a
    running session (`ray_session`)."""
    import ray

    source = lance_source(store, snap, "memory")
    rows = source.read(ray, memory_columns(snap, with_vectors=with_vectors), where)
    lines = rows.map_batches(_RenderLines(with_vectors), batch_format="pyarrow",
                             batch_size=CHUNK_ROWS, zero_copy_batch=True).sort("id")
    for batch in lines.iter_batches(batch_format="pyarrow", batch_size=CHUNK_ROWS):
        yield from zip(batch["id"].to_pylist(), batch["line"].to_pylist(), strict=True)
        if progress is not None:
            progress(batch.num_rows)
