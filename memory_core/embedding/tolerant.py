"""`embed_tolerant`: embed what can be embedded, leaving only the texts that fail pending.

An embedder can fail on some texts only (a text its tokenizer chokes on, a remote model that
refuses one input) or on all of them (no model). A batch that raises `EmbedderUnavailableError`
is cut in halves and each half tried again, down to single texts, so one bad text costs about
2 x log2(batch) calls and leaves only itself without a vector. When `DOWN_AFTER` texts in a
row fail on their own, the embedder is taken to be down: the remaining texts are not tried
(a model that cannot load would otherwise be asked to load once per text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memory_core.embedding.base import Embedder, Progress
from memory_core.model.errors import EmbedderUnavailableError

if TYPE_CHECKING:
    import numpy as np

#: Texts in a row that fail alone before the embedder is taken to be down.
DOWN_AFTER = 8


@dataclass
class Tolerant:
    """What `embed_tolerant` made of its texts; keep it across calls so that an embedder found
    down is not asked again."""

    #: The first error, as text (None while every text embedded).
    error: str | None = None
    #: Whether the embedder failed on `DOWN_AFTER` texts in a row.
    down: bool = False
    failed: int = 0
    _in_a_row: int = field(default=0, repr=False)


def embed_tolerant(embedder: Embedder, texts: Sequence[str], state: Tolerant | None = None, *,
                   batch_size: int = 32, progress: Progress | None = None
                   ) -> list[np.ndarray | None]:
    """The vector of each of `texts`, None for those the embedder failed on (or did not try,
    once `state.down`); `state` records the first error and how many failed (the caller
    logs it)."""
    state = state if state is not None else Tolerant()
    out: list[np.ndarray | None] = [None] * len(texts)

    def attempt(start: int, stop: int) -> None:
        if state.down:
            state.failed += stop - start
            if progress is not None:
                progress(stop - start)
            return
        try:
            vectors = embedder.embed_batch(texts[start:stop])
        except EmbedderUnavailableError as exc:
            state.error = state.error or str(exc)
            if stop - start > 1:
                middle = (start + stop) // 2
                attempt(start, middle)
                attempt(middle, stop)
                return
            state.failed += 1
            state._in_a_row += 1
            state.down = state._in_a_row >= DOWN_AFTER
            if progress is not None:
                progress(1)
            return
        state._in_a_row = 0
        out[start:stop] = list(vectors)
        if progress is not None:
            progress(stop - start)

    for start in range(0, len(texts), batch_size):
        attempt(start, min(start + batch_size, len(texts)))
    return out
