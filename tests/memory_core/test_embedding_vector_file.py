"""Files of precomputed vectors and `PreloadedEmbedder`: a text's stored vector is the model's,
another model's or a damaged file is refused, and only texts the file lacks reach the model."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memory_core.embedding import offline
from memory_core.embedding.preloaded import PreloadedEmbedder
from memory_core.embedding.vector_file import (
    model_fingerprint,
    read_vector_file,
    text_key,
    write_vector_file,
)
from memory_core.model.config import DEFAULT_MODEL
from memory_core.model.errors import ModelMismatchError, VectorFileError
from tests.conftest import FakeEmbedder

TEXTS = ["the cache layer", "retries back off", "the cache layer", "tokens expire hourly"]


class Recording(FakeEmbedder):
    """The fake embedder, remembering every text it embedded (under any model id)."""

    def __init__(self, model_id: str = FakeEmbedder.model_id) -> None:
        super().__init__()
        self.model_id = model_id
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        return super().embed_batch(texts)


@pytest.fixture
def written(tmp_path: Path) -> Path:
    path = tmp_path / "vectors.npz"
    assert write_vector_file(path, TEXTS, FakeEmbedder()) == 3  # the repeated text once
    return path


def test_each_text_reads_back_as_the_model_made_it(written: Path) -> None:
    shipped = read_vector_file(written, FakeEmbedder())
    assert len(shipped) == 3
    for text in TEXTS:
        assert np.array_equal(shipped.vector_of(text), FakeEmbedder().embed_one(text))
    assert shipped.vector_of("the cache layer ") is None  # keyed by the exact text
    assert shipped.vectors.dtype == np.float32


def test_the_file_is_a_plain_npz_keyed_by_sha256(written: Path) -> None:
    with np.load(written, allow_pickle=False) as archive:
        keys, vectors = archive["keys"], archive["vectors"]
    assert bytes(keys[1]) == text_key("retries back off")
    assert text_key("abc") == bytes.fromhex(  # FIPS 180-2's sha256("abc")
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert np.array_equal(vectors[1], FakeEmbedder().embed_one("retries back off"))


def test_the_same_vectors_give_the_same_bytes(written: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.npz"
    write_vector_file(again, TEXTS, FakeEmbedder())
    assert again.read_bytes() == written.read_bytes()


def test_another_model_or_dimension_is_refused_by_name(written: Path) -> None:
    with pytest.raises(ModelMismatchError, match="'test/fake-bow'.*not of 'test/other'"):
        read_vector_file(written, Recording("test/other"))
    wider = FakeEmbedder()
    wider.dimension = 32
    with pytest.raises(ModelMismatchError, match="16-d.*32-d"):
        read_vector_file(written, wider)


def test_the_default_models_fingerprint_follows_its_package(
        monkeypatch: pytest.MonkeyPatch) -> None:
    before = model_fingerprint(DEFAULT_MODEL)
    assert len(before) == 64 and model_fingerprint("test/fake-bow") == ""
    path, _ = offline.packaged_onnx()
    monkeypatch.setattr(offline, "packaged_onnx", lambda: (path, "0" * 64))
    assert model_fingerprint(DEFAULT_MODEL) != before


def _damaged(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "missing":
        path.unlink()
    elif how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "not a zip":
        path.write_text("vectors, honest")
    elif how == "flipped byte":  # in the middle of the keys' data: the CRC notices it
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("keys.npy")
        at = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
        path.write_bytes(data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:])
    elif how == "other arrays":
        np.savez(path, meta=np.array("{}"), vectors=np.zeros((1, 16), np.float32))


@pytest.mark.parametrize("how", ["missing", "truncated", "not a zip", "flipped byte",
                                 "other arrays"])
def test_a_missing_or_damaged_file_is_a_vector_file_error(written: Path, how: str) -> None:
    _damaged(written, how)
    with pytest.raises(VectorFileError, match=r"vectors\.npz.*(regenerate|restore)"):
        read_vector_file(written, FakeEmbedder())


def test_preloaded_texts_never_reach_the_model(written: Path) -> None:
    inner = Recording()
    embedder = PreloadedEmbedder(inner, read_vector_file(written, inner))
    vectors = embedder.embed(TEXTS)
    assert inner.calls == 0 and embedder.served == 4 and embedder.embedded == 0
    assert np.array_equal(vectors, FakeEmbedder().embed(TEXTS))


def test_only_the_texts_the_file_lacks_are_embedded_once_each(written: Path) -> None:
    inner = Recording()
    embedder = PreloadedEmbedder(inner, read_vector_file(written, inner))
    texts = ["retries back off", "a new note", "the cache layer", "a new note"]
    vectors = embedder.embed_batch(texts)
    assert inner.texts == ["a new note"]
    assert (embedder.served, embedder.embedded) == (2, 2)
    assert np.array_equal(vectors, FakeEmbedder().embed_batch(texts))


def test_a_file_of_another_model_cannot_stand_in(written: Path) -> None:
    shipped = read_vector_file(written, FakeEmbedder())
    with pytest.raises(ValueError, match="'test/fake-bow'.*cannot stand in for 'test/other'"):
        PreloadedEmbedder(Recording("test/other"), shipped)
