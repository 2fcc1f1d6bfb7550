"""Seeding with the shipped demo vectors: nothing embedded by the model, the same vectors it
would make, and every other case (a changed text, another model, a damaged file, a broken or
switched-off model) embedded or left pending exactly as without the file."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memory_core.embedding import (
    Embedder,
    PackagedModelEmbedder,
    UnavailableEmbedder,
    load_embedder,
    offline,
)
from memory_core.embedding.vector_file import read_vector_file
from memory_core.exchange.ndjson import write_export
from memory_core.exchange.readers.memlens import read_export
from memory_core.model.config import DEFAULT_MODEL, Settings
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.seeding import (
    DEMO_EXPORT,
    DEMO_VECTORS,
    demo_dir,
    seed_from_export,
)
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

SHIPPED = demo_dir() / DEMO_VECTORS


class StandIn(Embedder):
    """Claims to be the default model (id and 384-d) without loading it: a unit vector per
    text from its sha256, every text it embedded remembered; `broken` raises like a model
    that cannot load."""

    model_id = DEFAULT_MODEL
    dimension = 384

    def __init__(self, *, broken: bool = False) -> None:
        self.broken = broken
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if self.broken:
            raise EmbedderUnavailableError("the model file is damaged")
        self.texts += texts
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dimension)
            out[i] = vector / np.linalg.norm(vector)
        return out


@pytest.fixture(scope="module")
def demo_texts() -> list[str]:
    _, records = read_export(demo_dir() / DEMO_EXPORT)
    return [r["content"] for r in records if r["kind"] == "memory"]


def _export(folder: Path, texts: Sequence[str]) -> Path:
    """An export of one `fact` per text (no edges): a small stand-in for the demo's."""
    when = datetime(2026, 1, 1, tzinfo=UTC)
    memories = [Memory.new(text, "fact", id=f"m{i:03d}", created_at=when)
                for i, text in enumerate(texts)]
    path = folder / "small.ndjson"
    write_export(path, memories, [], tenant="default", exported_at=when)
    return path


def _vectors(store: MemoryStore) -> dict[str, tuple[np.ndarray, str]]:
    """content -> (vector, embedding_status) of every memory of the store."""
    rows = store.bulk.scan(["content", "vector", "embedding_status"])
    return {c: (np.asarray(v if v is not None else [], dtype=np.float32), s) for c, v, s in zip(
        rows["content"].to_pylist(), rows["vector"].to_pylist(),
        rows["embedding_status"].to_pylist(), strict=True)}


def _seed(tmp_path: Path, embedder: Embedder, texts: Sequence[str],
          vectors: Path | None = None) -> tuple[MemoryStore, object]:
    store = MemoryStore.open(str(tmp_path / "store"), embedder=embedder)
    return store, seed_from_export(store, _export(tmp_path, texts), vectors=vectors)


@pytest.mark.slow  # seeds the 3,000-memory demo corpus (about 5 s)
def test_seeding_the_demo_embeds_nothing_with_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(PackagedModelEmbedder, "embed_batch",
                        lambda self, texts: calls.append(len(texts)))
    settings = Settings.from_env(store_uri=str(tmp_path / "store"))
    store = MemoryStore.open(settings=settings)
    assert isinstance(store.embedder, PackagedModelEmbedder)  # the real default, loaded lazily
    report = seed_from_export(store)
    assert calls == []
    assert (report.pending, report.embedding_error, report.vectors_note) == (0, None, None)
    assert report.vectors_reused == report.memories == 3003
    shipped = read_vector_file(SHIPPED, store.embedder)
    stored = _vectors(store)
    assert len(stored) == len(shipped)  # every distinct text, no other
    for text, (vector, status) in stored.items():
        assert status == "ok" and np.array_equal(vector, shipped.vector_of(text))


def test_every_demo_text_has_a_shipped_vector_and_no_other(demo_texts: list[str]) -> None:
    shipped = read_vector_file(SHIPPED, StandIn())
    assert all(shipped.vector_of(text) is not None for text in demo_texts)
    assert len(shipped) == len(set(demo_texts))
    assert SHIPPED.stat().st_size < 5_000_000


def test_a_changed_text_alone_is_embedded_by_the_model(tmp_path: Path,
                                                       demo_texts: list[str]) -> None:
    texts = demo_texts[:30]
    texts[5] += " (edited)"
    texts[17] = texts[17].upper()
    model = StandIn()
    store, report = _seed(tmp_path, model, texts)
    assert model.texts == [texts[5], texts[17]]
    assert (report.memories, report.pending, report.vectors_reused) == (30, 0, 28)
    shipped = read_vector_file(SHIPPED, model)
    stored = _vectors(store)
    for i, text in enumerate(texts):
        expected = StandIn().embed_one(text) if i in (5, 17) else shipped.vector_of(text)
        assert stored[text][1] == "ok" and np.array_equal(stored[text][0], expected)


def test_another_model_embeds_every_memory(tmp_path: Path, demo_texts: list[str],
                                           caplog: pytest.LogCaptureFixture) -> None:
    model = FakeEmbedder()
    with caplog.at_level(logging.WARNING):
        _, report = _seed(tmp_path, model, demo_texts[:30])
    assert (report.pending, report.vectors_reused) == (0, 0) and model.calls == 1
    assert "sentence-transformers/all-MiniLM-L6-v2" in (report.vectors_note or "")
    assert "test/fake-bow" in (report.vectors_note or "")
    assert caplog.records == []  # another model is no fault: noted, not warned about


def test_another_build_of_the_default_model_embeds_every_memory(
        tmp_path: Path, demo_texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = offline.packaged_onnx()
    monkeypatch.setattr(offline, "packaged_onnx", lambda: (path, "f" * 64))  # a new ONNX
    model = StandIn()
    _, report = _seed(tmp_path, model, demo_texts[:30])
    assert model.texts == demo_texts[:30]
    assert (report.pending, report.vectors_reused) == (0, 0)
    assert "fingerprint" in (report.vectors_note or "")


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_a_missing_or_damaged_file_falls_back_with_a_logged_note(
        tmp_path: Path, demo_texts: list[str], caplog: pytest.LogCaptureFixture,
        damage: str) -> None:
    vectors = tmp_path / DEMO_VECTORS
    if damage == "truncated":
        vectors.write_bytes(SHIPPED.read_bytes()[:100_000])
    model = StandIn()
    with caplog.at_level(logging.WARNING, logger="memory_core.seeding"):
        store, report = _seed(tmp_path, model, demo_texts[:30], vectors)
    assert model.texts == demo_texts[:30]
    assert (report.memories, report.pending, report.vectors_reused) == (30, 0, 0)
    assert store.count(Filter(status=STATUSES, embedding_status="ok")) == 30
    note = "does not exist" if damage == "missing" else "damaged"
    assert note in (report.vectors_note or "")
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "embeds every memory with the model" in caplog.text and note in caplog.text


def test_a_model_that_cannot_load_still_gets_the_shipped_vectors(
        tmp_path: Path, demo_texts: list[str]) -> None:
    store, report = _seed(tmp_path, StandIn(broken=True), demo_texts[:30])
    assert (report.pending, report.embedding_error, report.vectors_reused) == (0, None, 30)
    assert store.count(Filter(status=STATUSES, embedding_status="ok")) == 30


def test_a_text_the_file_lacks_still_goes_pending_when_the_model_cannot_load(
        tmp_path: Path, demo_texts: list[str]) -> None:
    _, report = _seed(tmp_path, StandIn(broken=True), [*demo_texts[:29], "a new note"])
    assert report.memories == 30 and report.pending >= 1
    assert "damaged" in (report.embedding_error or "")


def test_embedding_switched_off_keeps_every_memory_pending(tmp_path: Path,
                                                           demo_texts: list[str]) -> None:
    off = UnavailableEmbedder(DEFAULT_MODEL, 384, "embedding is disabled")
    _, report = _seed(tmp_path, off, demo_texts[:30])
    assert (report.memories, report.pending, report.vectors_reused) == (30, 30, 0)
    assert report.vectors_note == "not used: embedding is disabled"


def test_without_the_model_package_memories_stay_pending_as_before(
        tmp_path: Path, demo_texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> tuple[Path, str]:
        raise EmbedderUnavailableError("the embedding model package is missing")

    monkeypatch.setattr(offline, "packaged_onnx", missing)
    _, report = _seed(tmp_path, StandIn(broken=True), demo_texts[:30])
    assert (report.pending, report.vectors_reused) == (30, 0)
    assert "package is missing" in (report.vectors_note or "")


@pytest.mark.model
def test_the_shipped_vectors_are_the_models_own(demo_texts: list[str]) -> None:
    """Fails when the model package (or fastembed's pipeline) changes the vectors: regenerate
    the file then (`python -m tools.demo_corpus`)."""
    model = load_embedder(Settings.from_env())
    shipped = read_vector_file(SHIPPED, model)  # same id, dimension and fingerprint
    sample = demo_texts[:: len(demo_texts) // 39][:39] + [max(demo_texts, key=len)]
    vectors = model.embed(sample)
    for text, vector in zip(sample, vectors, strict=True):
        assert np.abs(vector - shipped.vector_of(text)).max() <= 1e-5, text
