"""`embed_tolerant` and the writes that use it: only the texts an embedder fails on stay
pending, in `import` (both modes) and `upsert`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pytest

from memory_core.embedding import UnavailableEmbedder
from memory_core.embedding.tolerant import DOWN_AFTER, Tolerant, embed_tolerant
from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder


class Picky(FakeEmbedder):
    """The fake embedder, except that it refuses any batch holding the word 'poison'."""

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if any("poison" in text for text in texts):
            self.calls += 1
            raise EmbedderUnavailableError("the model refuses 'poison'")
        return super().embed_batch(texts)


BAD = {5, 33}
TEXTS = [f"note {i} about {'poison' if i in BAD else 'herbs'} number {i}" for i in range(70)]


def test_one_bad_text_leaves_only_itself_without_a_vector() -> None:
    embedder, state = Picky(), Tolerant()
    vectors = embed_tolerant(embedder, TEXTS, state)
    assert [i for i, v in enumerate(vectors) if v is None] == sorted(BAD)
    good = FakeEmbedder().embed_batch([TEXTS[0]])[0]
    first = vectors[0]
    assert first is not None and np.array_equal(first, good)
    assert state.error == "the model refuses 'poison'" and state.failed == 2
    assert not state.down
    # Three batches of 32, 32 and 6; each bad one is halved down to its bad text:
    # 32 -> 16 -> 8 -> 4 -> 2 -> 1 is 6 failing calls and 5 good halves, twice, plus batch 3.
    assert embedder.calls == 2 * (6 + 5) + 1


def test_an_embedder_that_is_down_is_not_asked_once_per_text() -> None:
    calls: list[int] = []

    class Down(UnavailableEmbedder):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
            calls.append(len(texts))
            return super().embed_batch(texts)

    embedder = Down("test/none", 16, "no model")
    state = Tolerant()
    vectors = embed_tolerant(embedder, ["t"] * 1000, state)
    assert vectors == [None] * 1000 and state.down and state.failed == 1000
    assert calls.count(1) == DOWN_AFTER and len(calls) < 20
    embed_tolerant(embedder, ["t"] * 5, state)  # a later call does not ask again
    assert len(calls) < 20


def _export(tmp_path: Path) -> Path:
    source = MemoryStore.open(str(tmp_path / "source"), embedder=FakeEmbedder())
    source.add([Memory.new(text, "observation", project="p") for text in TEXTS], dedup=False)
    path = tmp_path / "export.ndjson"
    export_store(source, path)  # without vectors: the import embeds them all
    return path


@pytest.mark.parametrize("mode", ["empty", "merge"])
def test_an_import_leaves_only_the_failed_memories_pending(
        tmp_path: Path, mode: Literal["empty", "merge"]) -> None:
    path = _export(tmp_path)
    target = MemoryStore.open(str(tmp_path / "target"), embedder=Picky())
    report = import_file(target, path, mode=mode)
    assert (report.pending, report.embedded) == (2, 68)
    assert report.embedding_error == "the model refuses 'poison'"
    memories = target.list(Filter(status=STATUSES), with_vectors=True)
    pending = sorted(m.content for m in memories if m.embedding_status == "pending")
    assert pending == sorted(TEXTS[i] for i in BAD)
    assert all(m.vector is None for m in memories if m.embedding_status == "pending")
    ok = [m for m in memories if m.embedding_status == "ok"]
    assert len(ok) == 68 and all(m.vector is not None for m in ok)
    herbs = next(m for m in ok if m.content == TEXTS[0])
    assert herbs.vector is not None
    assert np.allclose(herbs.vector, FakeEmbedder().embed_batch([TEXTS[0]])[0])
