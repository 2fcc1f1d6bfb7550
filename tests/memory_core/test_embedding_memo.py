"""`MemoEmbedder`: the inner embedder's vectors, each text embedded once."""

from __future__ import annotations

import numpy as np
import pytest

from memory_core.embedding import UnavailableEmbedder
from memory_core.embedding.memo import MemoEmbedder
from memory_core.model.errors import EmbedderUnavailableError
from tests.conftest import FakeEmbedder


def test_vectors_are_the_inner_ones_each_text_embedded_once() -> None:
    inner = FakeEmbedder()
    memo = MemoEmbedder(inner)
    assert (memo.model_id, memo.dimension) == (inner.model_id, inner.dimension)
    first = memo.embed_batch(["a b", "c", "a b"])
    assert inner.calls == 1
    np.testing.assert_array_equal(first, FakeEmbedder().embed_batch(["a b", "c", "a b"]))
    np.testing.assert_array_equal(memo.embed_one("c"), first[1])
    assert inner.calls == 1  # "c" was remembered
    memo.embed_batch(["c", "d"])
    assert inner.calls == 2 and memo.embed_batch([]).shape == (0, inner.dimension)


def test_errors_pass_through_and_nothing_is_cached() -> None:
    memo = MemoEmbedder(UnavailableEmbedder("m", 4, "no model here"))
    for _ in range(2):
        with pytest.raises(EmbedderUnavailableError, match="no model here"):
            memo.embed_one("x")
