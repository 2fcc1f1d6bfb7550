"""`FastEmbedEmbedder`: a fastembed `TextEmbedding`, loaded lazily and once per process.

It loads either from a folder (`specific_model_path=`: the offline default's, which
`memlens bench ingest` and the tests run through fastembed as the reference for
`PackagedModelEmbedder`) or from fastembed's cache with `local_files_only=True`: memlens
never downloads a model. Its onnxruntime threads sleep between runs instead of spinning
(`quiet_threads.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.embedding.base import Embedder
from memory_core.embedding.quiet_threads import load_without_spinning
from memory_core.model.config import DEFAULT_MODEL
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    import numpy as np


class FastEmbedEmbedder(Embedder):
    """A fastembed `TextEmbedding`, loaded lazily and once per process per model/folder."""

    _models: dict[tuple[str, str | None, str | None], Any] = {}
    _lock = threading.Lock()

    def __init__(
        self,
        model_id: str,
        dimension: int,
        *,
        model_dir: Callable[[], Path] | None = None,
        cache_dir: Path | None = None,
        threads: int | None = None,
    ) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self._model_dir = model_dir
        self._cache_dir = cache_dir
        self._threads = threads
        self._loaded: Any = None  # the model, once resolved (skips the folder check per call)

    def __getstate__(self) -> dict[str, Any]:
        # pickled for another process (a Ray worker): the model is reloaded there, from the
        # same offline files, not copied
        return {**self.__dict__, "_loaded": None}

    def _load(self) -> Any:
        if self._loaded is not None:
            return self._loaded
        folder = str(self._model_dir()) if self._model_dir else None
        key = (self.model_id, folder, str(self._cache_dir) if self._cache_dir else None)
        with self._lock:
            if key not in self._models:
                self._models[key] = _load_fastembed(
                    self.model_id, folder, self._cache_dir, self._threads
                )
            self._loaded = self._models[key]
            return self._loaded

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        model = self._load()
        vectors = np.asarray(list(model.embed(list(texts), batch_size=max(1, len(texts)))))
        return vectors.astype(np.float32, copy=False)

    def preload(self) -> None:
        """Load the model now (it loads on first use otherwise)."""
        self._load()


def _load_fastembed(
    model_id: str, folder: str | None, cache_dir: Path | None, threads: int | None
) -> Any:
    try:
        from fastembed import TextEmbedding
    except ImportError as exc:  # pragma: no cover - fastembed is a dependency
        raise EmbedderUnavailableError(
            "fastembed is not installed; run `pip install fastembed`"
        ) from exc
    kwargs: dict[str, Any] = {"threads": threads}
    if folder is not None:
        kwargs["specific_model_path"] = folder
    else:
        kwargs["cache_dir"] = str(cache_dir) if cache_dir else None
        kwargs["local_files_only"] = True  # never download: memlens runs offline
    try:
        return load_without_spinning(lambda: TextEmbedding(model_name=model_id, **kwargs))
    except Exception as exc:  # fastembed raises bare ValueError/OSError/RuntimeError variants
        where = folder or cache_dir
        raise EmbedderUnavailableError(
            f"cannot load embedding model {shown(model_id)} from {where}: {exc}. memlens never "
            f"downloads models; put the model in that cache folder or use the default "
            f"{DEFAULT_MODEL!r}"
        ) from exc
