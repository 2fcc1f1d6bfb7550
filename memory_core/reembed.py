"""Completing and replacing embeddings (seed 003 ADR-009 deferred indexing; model changes).

`fill_pending` embeds the tenant's memories whose `embedding_status` is pending or failed.
`switch_model` re-embeds every memory of the store with another model and rewrites the
`vector` column (new dimension and model id); older table versions keep the old vectors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from memory_core.embedding import Embedder
from memory_core.errors import EmbedderUnavailableError
from memory_core.filters import Filter
from memory_core.records import utcnow
from memory_core.schema import STATUSES
from memory_core.store import MemoryStore

Progress = Callable[[int], None]


@dataclass(frozen=True)
class ReembedReport:
    """How many memories got vectors, from which model, and the table version after."""

    embedded: int
    model_id: str
    dimension: int
    table_version: int


def _merge_vectors(store: MemoryStore, keys: list[tuple[str, str]], vectors: np.ndarray,
                   batch_rows: int) -> None:
    """Write `vectors` to the memories `keys` ((tenant, id) each, in the same order)."""
    dim = int(vectors.shape[1])
    now = utcnow()
    for start in range(0, len(keys), batch_rows):
        chunk_keys = keys[start : start + batch_rows]
        chunk_ids = [i for _, i in chunk_keys]
        chunk = vectors[start : start + batch_rows]
        store.bulk.update(pa.table(
            {
                "tenant": pa.array([t for t, _ in chunk_keys], pa.string()),
                "id": pa.array(chunk_ids, pa.string()),
                "embedding_status": pa.array(["ok"] * len(chunk_ids), pa.string()),
                "updated_at": pa.array([now] * len(chunk_ids), pa.timestamp("us", tz="UTC")),
                "vector": pa.FixedSizeListArray.from_arrays(
                    pa.array(chunk.reshape(-1), pa.float32()), dim
                ),
            }
        ))


def fill_pending(
    store: MemoryStore, *, progress: Progress | None = None, batch_rows: int = 512
) -> ReembedReport:
    """Embed this tenant's pending and failed memories with the store's model."""
    store.check_writable("reembed")
    unembedded = Filter(status=STATUSES, embedding_status=["pending", "failed"])
    rows = store.scan(["id", "content"], unembedded).sort_by("id")
    ids, contents = rows["id"].to_pylist(), rows["content"].to_pylist()
    if ids:
        try:
            vectors = store.embedder.embed(contents, progress=progress)
        except EmbedderUnavailableError as exc:
            raise EmbedderUnavailableError(
                f"{len(ids)} memories are still pending: {exc}"
            ) from exc
        with store.writing("reembed"):  # all batches or none
            _merge_vectors(store, [(store.tenant, i) for i in ids], vectors, batch_rows)
            store.append_audit("reembed", ids,
                               after={"embedded": len(ids), "model": store.model_id},
                               table_version=store.version)
    return ReembedReport(len(ids), store.model_id, store.dimension, store.version)


def switch_model(
    store: MemoryStore, embedder: Embedder, *, progress: Progress | None = None,
    batch_rows: int = 512,
) -> ReembedReport:
    """Re-embed every memory of the store (all tenants) with `embedder` and record its model.

    Every vector is computed before the table changes, so a model that fails leaves the store
    as it was.
    """
    store.check_writable("reembed --model")
    rows = store.bulk.scan(["id", "content", "tenant"]).sort_by("id")
    ids, contents = rows["id"].to_pylist(), rows["content"].to_pylist()
    vectors = embedder.embed(contents, progress=progress)
    old_model = (store.model_id, store.dimension)
    old_embedder = store.embedder
    try:
        with store.writing("switch model"):  # the column swap, every batch, every audit row
            store.bulk.set_vector_model(embedder)
            tenants = rows["tenant"].to_pylist()
            _merge_vectors(store, list(zip(tenants, ids, strict=True)), vectors, batch_rows)
            version = store.version
            for tenant in sorted(set(tenants)):
                tenant_ids = [i for i, t in zip(ids, tenants, strict=True) if t == tenant]
                store.append_audit(
                    "reembed", tenant_ids, tenant=tenant,
                    before={"model": old_model[0], "dimension": old_model[1]},
                    after={"model": embedder.model_id, "dimension": embedder.dimension},
                    reason="embedding model changed", table_version=version,
                )
    except BaseException:
        store.use_model(old_embedder)  # the tables were put back; so is the handle
        raise
    return ReembedReport(len(ids), embedder.model_id, embedder.dimension, version)
