"""Shared fixtures: a deterministic fake embedder and real LanceDB stores in tmp_path."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memory_core.embedding import Embedder
from memory_core.store import MemoryStore

FAKE_DIM = 16


class FakeEmbedder(Embedder):
    """Bag-of-words vectors: each lower-cased word adds a fixed pseudo-random unit vector.

    Tests can predict it: texts sharing words are close, texts sharing none are near
    orthogonal, and the same text always gives the same vector.
    """

    model_id = "test/fake-bow"
    dimension = FAKE_DIM

    def __init__(self) -> None:
        self.calls = 0

    @staticmethod
    def word_vector(word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(FAKE_DIM)
        return vector / np.linalg.norm(vector)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), FAKE_DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i] += self.word_vector(word)
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
        return out


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def store_path(tmp_path: Path) -> str:
    return str(tmp_path / "store")


@pytest.fixture
def store(store_path: str, fake_embedder: FakeEmbedder) -> MemoryStore:
    """An empty store on real LanceDB, tenant 'default', with the fake embedder."""
    return MemoryStore.open(store_path, embedder=fake_embedder, tenant="default")


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> None:
    """No MEMLENS_* setting of the developer's shell leaks into a test."""
    import os

    for name in list(os.environ):
        if name.startswith("MEMLENS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEMLENS_MODEL_CACHE", str(model_cache))


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> MemoryStore:
    """The demo corpus seeded once per run with the real offline model (read it, don't write)."""
    from memory_core.config import Settings
    from memory_core.seeding import seed_from_export

    uri = str(tmp_path_factory.mktemp("demo-store") / "store")
    settings = Settings.from_env(env={}, store_uri=uri,
                                 model_cache=tmp_path_factory.mktemp("demo-model"))
    store = MemoryStore.open(settings=settings)
    seed_from_export(store)
    return store


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `memlens ARGV` in-process: (exit code, stdout, stderr)."""
    from memory_core.cli import main

    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
