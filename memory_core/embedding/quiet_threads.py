"""Load a fastembed model whose onnxruntime threads sleep between queries instead of spinning.

onnxruntime's worker threads spin-wait for work after each run by default. For a search that
embeds one short query and then waits on LanceDB, that spinning is pure loss: the query
encoder's worker thread keeps nearly a whole core busy, which on a small machine is taken
from the LanceDB queries and the Python work beside them. With spinning off, searches are
faster overall, while a query's embedding alone is slightly slower (the worker wakes from
sleep).

fastembed builds its `onnxruntime.SessionOptions` itself and exposes no spinning option, so
while it loads, its module sees a `SessionOptions` with the two spinning entries set to "0";
every other option is fastembed's own. `spinning_of(model)` reads them back from the loaded
session (a test holds the loader to it).
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any, TypeVar

SPINNING = ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning")

T = TypeVar("T")
_LOCK = threading.Lock()  # the patch is module-wide while it lasts: one load at a time


def load_without_spinning(load: Callable[[], T]) -> T:
    """`load()` (which builds a fastembed model) with onnxruntime spinning turned off."""
    import onnxruntime
    from fastembed.common import onnx_model

    class QuietOptions(onnxruntime.SessionOptions):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            for key in SPINNING:
                self.add_session_config_entry(key, "0")

    class QuietRuntime(types.ModuleType):
        SessionOptions = QuietOptions

        def __getattr__(self, name: str) -> Any:
            return getattr(onnxruntime, name)

    with _LOCK:
        original = onnx_model.ort
        onnx_model.ort = QuietRuntime("onnxruntime")
        try:
            return load()
        finally:
            onnx_model.ort = original


def spinning_of(model: Any) -> dict[str, str]:
    """The spinning entries of a loaded fastembed `TextEmbedding`'s onnxruntime session
    ("1" where unset: onnxruntime's default)."""
    options = model.model.model.get_session_options()
    out = {}
    for key in SPINNING:
        try:
            out[key] = options.get_session_config_entry(key)
        except Exception:  # noqa: BLE001 - onnxruntime raises when the entry is unset
            out[key] = "1"
    return out
