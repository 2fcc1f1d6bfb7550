"""Completing and replacing embeddings: pending ones after a failure, or all on a model change.

A memory whose embedding failed is written with `embedding_status="pending"` and completed
later (ADR-009 in docs/design/seeds.md; docs/design/embeddings.md).

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
from memory_core.model.errors import EmbedderUnavailableError, StoreBusyError
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore

Progress = Callable[[int], None]
#: A memory's key: (tenant, id). Ids are unique within a tenant; two tenants may share one.
Key = tuple[str, str]
#: Computes vectors for a job: (store, embedder, predicate or None for the whole store,
#: progress) -> (keys sorted by id then tenant, their vectors in that order). In-process by
#: default; the Ray engine embeds in its workers (memory_core.distributed).
VectorJob = Callable[[MemoryStore, Embedder, "str | None", "Progress | None"],
                     tuple[list[Key], np.ndarray]]


def sorted_keys(rows: pa.Table) -> tuple[list[Key], pa.Table]:
    """The (tenant, id) keys of `rows`, sorted by id then tenant, and the rows in that order."""
    rows = rows.sort_by([("id", "ascending"), ("tenant", "ascending")])
    return list(zip(rows["tenant"].to_pylist(), rows["id"].to_pylist(), strict=True)), rows


def local_vectors(store: MemoryStore, embedder: Embedder, where: str | None,
                  progress: Progress | None) -> tuple[list[Key], np.ndarray]:
    """The vectors of the memories matching `where` (every tenant's when None), embedded in
    this process (the default `VectorJob`)."""
    keys, rows = sorted_keys(store.bulk.scan(["tenant", "id", "content"], where))
    if not keys:
        return keys, np.zeros((0, embedder.dimension), dtype=np.float32)
    return keys, embedder.embed(rows["content"].to_pylist(), progress=progress)


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
    store: MemoryStore, *, progress: Progress | None = None, batch_rows: int = 512,
    vectors: VectorJob = local_vectors,
) -> ReembedReport:
    """Embed this tenant's pending and failed memories with the store's model (`vectors`
    computes them: in this process by default)."""
    store.check_writable("reembed")
    unembedded = Filter(status=STATUSES, embedding_status=["pending", "failed"])
    where = unembedded.to_predicate(store.tenant)
    if store.bulk.count("memory", where):
        try:
            keys, computed = vectors(store, store.embedder, where, progress)
        except EmbedderUnavailableError as exc:
            pending = store.bulk.count("memory", where)
            raise EmbedderUnavailableError(
                f"{pending} memories are still pending: {exc}"
            ) from exc
    else:
        keys, computed = [], np.zeros((0, store.dimension), dtype=np.float32)
    ids = [i for _, i in keys]
    if ids:
        with store.writing("reembed"):  # all batches or none
            _merge_vectors(store, keys, computed, batch_rows)
            store.audit.append("reembed", ids,
                               after={"embedded": len(ids), "model": store.model_id},
                               table_version=store.version)
    return ReembedReport(len(ids), store.model_id, store.dimension, store.version)


def switch_model(
    store: MemoryStore, embedder: Embedder, *, progress: Progress | None = None,
    batch_rows: int = 512, vectors: VectorJob = local_vectors,
) -> ReembedReport:
    """Re-embed every memory of the store (all tenants) with `embedder` and record its model
    (`vectors` computes them: in this process by default).

    Every vector is computed before the table changes, so a model that fails leaves the store
    as it was.
    """
    store.check_writable("reembed --model")
    expected, _ = sorted_keys(store.bulk.scan(["tenant", "id"]))
    keys, computed = vectors(store, embedder, None, progress)
    if keys != expected:
        raise StoreBusyError(
            "the store changed while its memories were being re-embedded (memories were "
            "added or deleted meanwhile); nothing was changed: run `memlens reembed --model` "
            "again")
    old_model = (store.model_id, store.dimension)
    old_embedder = store.embedder
    try:
        with store.writing("switch model"):  # the column swap, every batch, every audit row
            store.bulk.set_vector_model(embedder)
            _merge_vectors(store, keys, computed, batch_rows)
            version = store.version
            for tenant in sorted({t for t, _ in keys}):
                tenant_ids = [i for t, i in keys if t == tenant]
                store.audit.append(
                    "reembed", tenant_ids, tenant=tenant,
                    before={"model": old_model[0], "dimension": old_model[1]},
                    after={"model": embedder.model_id, "dimension": embedder.dimension},
                    reason="embedding model changed", table_version=version,
                )
    except BaseException:
        store.use_model(old_embedder)  # the tables were put back; so is the handle
        raise
    return ReembedReport(len(keys), embedder.model_id, embedder.dimension, version)
