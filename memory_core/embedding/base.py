"""The `Embedder` base (one abstract `embed_batch`) and the stand-in used when no model can run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memory_core.model.errors import EmbedderUnavailableError

if TYPE_CHECKING:
    import numpy as np

Progress = Callable[[int], None]


class Embedder(ABC):
    """Turns texts into unit vectors of `dimension` floats, tagged with `model_id`."""

    model_id: str
    dimension: int

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts` as a float32 array of shape (len(texts), dimension)."""

    def embed(
        self, texts: Sequence[str], *, batch_size: int = 32, progress: Progress | None = None
    ) -> np.ndarray:
        """Vectors of any number of texts, in batches, reporting texts done to `progress`."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), batch_size):
            batch = texts[start : start + batch_size]
            parts.append(self.embed_batch(batch))
            if progress is not None:
                progress(len(batch))
        return np.vstack(parts).astype(np.float32, copy=False)

    def embed_one(self, text: str) -> np.ndarray:
        """The vector of one text."""
        return self.embed_batch([text])[0]


class UnavailableEmbedder(Embedder):
    """Stands in when no model can be used: every call raises, so writes go `pending`."""

    def __init__(self, model_id: str, dimension: int, reason: str) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self.reason = reason

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderUnavailableError(self.reason)
