"""`PreloadedEmbedder`: an embedder's vectors, taken from a file of precomputed vectors where
it holds the text (seeding the demo embeds nothing), from the embedder itself otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.embedding.base import Embedder

if TYPE_CHECKING:
    import numpy as np

    from memory_core.embedding.vector_file import VectorFile


class PreloadedEmbedder(Embedder):
    """`inner`'s vectors: those `shipped` holds for the exact text, the others from `inner`
    (its errors pass through). `served` and `embedded` count texts of each kind.

    Build it from `read_vector_file(path, inner)`, which checks that the file holds vectors of
    `inner`'s model (id, dimension and fingerprint).
    """

    def __init__(self, inner: Embedder, shipped: VectorFile) -> None:
        if (shipped.model_id, shipped.dimension) != (inner.model_id, inner.dimension):
            raise ValueError(
                f"vectors of {shipped.model_id!r} ({shipped.dimension}-d) cannot stand in for "
                f"{inner.model_id!r} ({inner.dimension}-d); read the file for this embedder "
                f"with read_vector_file(path, embedder)")
        self.inner = inner
        self.shipped = shipped
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self.served = 0
        self.embedded = 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            vector = self.shipped.vector_of(text)
            if vector is None:
                missing.setdefault(text, []).append(i)
            else:
                out[i] = vector
        if missing:
            for rows, vector in zip(missing.values(), self.inner.embed_batch(list(missing)),
                                    strict=True):
                out[rows] = vector
            self.embedded += sum(len(rows) for rows in missing.values())
        self.served += len(texts) - sum(len(rows) for rows in missing.values())
        return out
