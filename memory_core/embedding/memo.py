"""`MemoEmbedder`: an embedder that remembers the vectors it made, for work that embeds the
same texts again and again (`tune` searches every query once per config)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.embedding.base import Embedder

if TYPE_CHECKING:
    import numpy as np


class MemoEmbedder(Embedder):
    """`inner`'s vectors, each text embedded once; errors of `inner` pass through uncached.

    Unbounded: make one for a job and drop it after.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self._vectors: dict[str, np.ndarray] = {}

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, self.inner.embed_batch(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts]).astype(np.float32, copy=False)
