"""Embedder drift: two models on temporary copies; the original store is left as it was."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from memory_core.evaluation import Query, evaluate_embedders
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.config import preset
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

NOW = datetime(2026, 10, 1, tzinfo=UTC)


class SaltedEmbedder(FakeEmbedder):
    """Another bag-of-words model: 12-d, its own word vectors (so its neighbours differ)."""

    model_id = "test/salted-bow"
    dimension = 12

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                seed = int.from_bytes(hashlib.sha256(b"salt" + word.encode()).digest()[:8],
                                      "little")
                out[i] += np.random.default_rng(seed).standard_normal(self.dimension)
            out[i] /= np.linalg.norm(out[i]) or 1.0
        return out


class BrokenEmbedder(SaltedEmbedder):
    model_id = "test/broken"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderUnavailableError("the broken model has no files")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """Where the temporary copies go (beside the store, which is tmp_path / "store")."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def queries(store: MemoryStore) -> list[Query]:
    mems = [Memory.new(text, created_at=NOW - timedelta(days=3), project=project,
                       status=status)
            for text, project, status in (
                ("token refresh race logs users out", "atlas", "active"),
                ("ci cache key includes the lockfile hash", "herd", "active"),
                ("prefer uv over pip for installs", "herd", "active"),
                ("old note about refresh tokens", "atlas", "archived"))]
    store.add(mems)
    store.edges.add([Edge.new(mems[3].id, mems[0].id, "supports", created_at=NOW)])
    return [Query("q1", "refresh token race", {mems[0].id: 2, mems[3].id: 1}),
            Query("q2", "lockfile cache", {mems[1].id: 1}, Filter(project="herd")),
            Query("q3", "uv installs", {mems[2].id: 1}),
            # archived memories are copied too: this query would find nothing otherwise
            Query("q4", "old refresh note", {mems[3].id: 1}, Filter(status="archived"))]


def test_the_same_model_on_a_copy_reproduces_the_store(store: MemoryStore,
                                                       queries: list[Query],
                                                       work: Path) -> None:
    cmp = evaluate_embedders(store, queries, preset("hybrid_graph"), None, FakeEmbedder(),
                             ks=(1, 3), now=NOW, workdir=work)
    # the copy holds the same records, edges and (re-computed) vectors: nothing moves
    assert cmp.names == ("test/fake-bow (a)", "test/fake-bow (b)")
    assert cmp.summary["delta"].to_list() == [0.0] * len(cmp.metrics)
    assert cmp.candidate.scores["mrr@3"]["q4"] == 1.0  # the archived memory was copied
    assert cmp.summary["p_value"].to_list() == [1.0] * len(cmp.metrics)
    assert list(work.iterdir()) == []  # the temporary copies are gone


def test_two_models_are_compared_and_the_original_is_untouched(
        store: MemoryStore, queries: list[Query], work: Path) -> None:
    before = (store.table_versions(), store.tables.model_id, store.tables.dimension,
              store.count())
    ticks: list[int] = []
    cmp = evaluate_embedders(store, queries, preset("vector"), FakeEmbedder(),
                             SaltedEmbedder(), ks=(3,), progress=ticks.append, now=NOW,
                             workdir=work)
    assert cmp.names == ("test/fake-bow", "test/salted-bow")
    assert cmp.summary.height == len(cmp.metrics) and cmp.stat_test == "student"
    assert sum(ticks) == 2 * 4 + 2 * len(queries)  # 4 memories embedded twice, 3 queries twice
    assert cmp.candidate.run.reasons == ()  # the copy searched with its own 12-d vectors
    after = (store.table_versions(), store.tables.model_id, store.tables.dimension,
             store.count())
    assert after == before
    assert list(work.iterdir()) == []


def test_a_model_that_cannot_embed_is_an_error(store: MemoryStore, queries: list[Query],
                                               work: Path) -> None:
    with pytest.raises(EmbedderUnavailableError, match="test/broken could not embed"):
        evaluate_embedders(store, queries, preset("vector"), None, BrokenEmbedder(),
                           workdir=work)
    assert list(work.iterdir()) == []
