"""`load_embedder`: the embedder the settings name, built once per process."""

from __future__ import annotations

import threading

from memory_core.embedding.base import Embedder, UnavailableEmbedder
from memory_core.embedding.fastembed_embedder import FastEmbedEmbedder
from memory_core.embedding.packaged_model import PackagedModelEmbedder
from memory_core.model.config import DEFAULT_MODEL, Settings
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.untrusted import shown

#: Dimensions of models memlens knows without loading them.
KNOWN_DIMENSIONS: dict[str, int] = {DEFAULT_MODEL: 384}

_DEFAULT_LOCK = threading.Lock()
_EMBEDDERS: dict[tuple[str, str], Embedder] = {}


def model_dimension(model_id: str) -> int:
    """The vector dimension of `model_id`, from memlens' table or fastembed's model list."""
    if model_id in KNOWN_DIMENSIONS:
        return KNOWN_DIMENSIONS[model_id]
    from fastembed import TextEmbedding

    for description in TextEmbedding.list_supported_models():
        if description["model"].lower() == model_id.lower():
            return int(description["dim"])
    raise EmbedderUnavailableError(
        f"unknown embedding model {shown(model_id)}; use {DEFAULT_MODEL!r} or a fastembed model "
        f"name (see `fastembed.TextEmbedding.list_supported_models()`)"
    )


def load_embedder(settings: Settings | None = None) -> Embedder:
    """The embedder `settings` asks for, built once per process.

    `MEMLENS_EMBED_MODEL=none` gives an `UnavailableEmbedder` (writes go pending, search is
    BM25-only). Loading itself is lazy: a broken model shows up at the first `embed_batch`
    as `EmbedderUnavailableError`, which the store turns into `embedding_status="pending"`.
    """
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
            embedder = PackagedModelEmbedder(DEFAULT_MODEL, KNOWN_DIMENSIONS[DEFAULT_MODEL])
        else:
            embedder = FastEmbedEmbedder(
                name, model_dimension(name), cache_dir=settings.model_cache / "fastembed"
            )
        _EMBEDDERS[key] = embedder
        return embedder
