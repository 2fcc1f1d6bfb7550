"""Embedding on Ray: the vectors of a re-embed computed by Ray workers.

Each task reads a block of (id, content) from the memories table at its current version and
embeds it with the job's embedder (shipped to the workers pickled; a fastembed model is
reloaded there from its offline files, once per worker process, which Ray reuses across
tasks). Plain tasks, not an actor pool: tasks fuse with the read, and actors holding every
core would leave none for the read tasks they wait on. The vectors come back here as they
finish, are put in id order, and are written by the in-process code
(`reembed.fill_pending` / `switch_model` with `vectors=ray_vectors`), so the store ends
exactly as an in-process re-embed leaves it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from memory_core.distributed.lance_source import lance_source
from memory_core.embedding import Embedder
from memory_core.reembed import Key, Progress
from memory_core.store import MemoryStore

#: Texts per batch a worker embeds (the in-process embedder's own batch size).
EMBED_BATCH = 256


def _embed_block(batch: pa.Table, embedder: Embedder) -> pa.Table:
    """A Ray Data batch function: a block of (tenant, id, content) -> (tenant, id, vector)."""
    vectors = embedder.embed(batch["content"].to_pylist())
    flat = pa.array(np.asarray(vectors, dtype=np.float32).reshape(-1), pa.float32())
    return pa.table({"tenant": batch["tenant"], "id": batch["id"],
                     "vector": pa.FixedSizeListArray.from_arrays(flat, embedder.dimension)})


def ray_vectors(store: MemoryStore, embedder: Embedder, where: str | None,
                progress: Progress | None) -> tuple[list[Key], np.ndarray]:
    """The vectors of the memories matching `where` (every tenant's when None), embedded on
    Ray: the Ray `VectorJob` of `reembed`. Needs a running session (`ray_session`)."""
    import ray

    source = lance_source(store, store.snapshot(), "memory")
    rows = source.read(ray, ["tenant", "id", "content"], where)
    embedded = rows.map_batches(_embed_block, fn_kwargs={"embedder": embedder},
                                batch_format="pyarrow", batch_size=EMBED_BATCH)
    keys: list[Key] = []
    parts: list[np.ndarray] = []
    for batch in embedded.iter_batches(batch_format="pyarrow", batch_size=None):
        keys.extend(zip(batch["tenant"].to_pylist(), batch["id"].to_pylist(), strict=True))
        column = batch["vector"].combine_chunks()
        parts.append(column.flatten().to_numpy().reshape(-1, embedder.dimension))
        if progress is not None:
            progress(batch.num_rows)
    if not keys:
        return keys, np.zeros((0, embedder.dimension), dtype=np.float32)
    # the in-process order: by id, then tenant (code point order, as Arrow sorts UTF-8)
    order = sorted(range(len(keys)), key=lambda i: (keys[i][1], keys[i][0]))
    vectors = np.concatenate(parts).astype(np.float32, copy=False)[order]
    return [keys[i] for i in order], vectors
