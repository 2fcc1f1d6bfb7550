"""Token budgets: `count_tokens` with the tokenizer memlens ships, and cutting an answer to fit.

The tokenizer is all-MiniLM-L6-v2's WordPiece (`memory_core/embedding/tokenizer.json`), the
one file every install has; it is not the agent's own model's tokenizer, so a budget is a
close estimate of what a client's model counts, the same figure for every client. It is
loaded once per process, without truncation or padding (the embedder cuts at 256 tokens; a
budget must count every token).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from memory_core.model.errors import EmbedderUnavailableError, InvalidConfigError

_lock = threading.Lock()
_tokenizer: list[Any] = []


def _loaded() -> Any:
    with _lock:
        if not _tokenizer:
            try:
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise EmbedderUnavailableError(
                    "the `tokenizers` package is missing; run `pip install tokenizers`"
                ) from exc
            from memory_core.embedding.offline import packaged_tokenizer, verify_tokenizer

            path = packaged_tokenizer()
            verify_tokenizer(path)
            tokenizer = Tokenizer.from_file(str(path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            _tokenizer.append(tokenizer)
        return _tokenizer[0]


def count_tokens(text: str) -> int:
    """How many tokens `text` is for the shipped tokenizer (no [CLS]/[SEP] added).

    >>> count_tokens("Use LanceDB for the memory store")
    7
    """
    if not text:
        return 0
    return len(_loaded().encode(text, add_special_tokens=False).ids)


def check_budget(max_tokens: int | None) -> int | None:
    """`max_tokens` if it is None or a positive whole number, else an error saying so."""
    if max_tokens is None:
        return None
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidConfigError(
            f"max_tokens must be a whole number >= 1, got {max_tokens!r}; leave it unset "
            f"for no budget")
    return max_tokens


def fit(items: Sequence[Any], render: Callable[[Sequence[Any]], str],
        max_tokens: int | None) -> tuple[int, str, int]:
    """(how many of `items`, best first, to keep; their text; its tokens) so that the text
    is at most `max_tokens` tokens: whole items are dropped, lowest ranked first.

    >>> fit(["a b", "c d e"], " ".join, 3)
    (1, 'a b', 2)
    """
    keep = len(items)
    text = render(items)
    tokens = count_tokens(text)
    if max_tokens is None:
        return keep, text, tokens
    while keep and tokens > max_tokens:
        keep -= 1
        text = render(items[:keep])
        tokens = count_tokens(text)
    return keep, text, tokens
