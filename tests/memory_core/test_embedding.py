"""The real offline model: right vectors, checksum enforced, no network touched."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import numpy as np
import pytest

from memory_core.embedding import (
    FastEmbedEmbedder,
    PackagedModelEmbedder,
    load_embedder,
    loader,
    offline,
)
from memory_core.embedding.packaged_model import SPINNING
from memory_core.model.config import DEFAULT_MODEL, Settings
from memory_core.model.errors import EmbedderUnavailableError

REFERENCES = Path(__file__).parent / "data" / "reference_vectors.json"

pytestmark = pytest.mark.model


@pytest.fixture
def model(model_cache: Path) -> PackagedModelEmbedder:
    embedder = load_embedder(Settings.from_env())
    assert isinstance(embedder, PackagedModelEmbedder)
    return embedder


def test_default_is_minilm_384(model: PackagedModelEmbedder) -> None:
    assert model.model_id == DEFAULT_MODEL == "sentence-transformers/all-MiniLM-L6-v2"
    assert model.dimension == 384
    vectors = model.embed(["hello world", "another text"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_related_sentences_score_far_above_unrelated(model: PackagedModelEmbedder) -> None:
    cat, kitten, revenue = model.embed([
        "The cat sat on the mat", "A kitten is resting on the rug",
        "Quarterly revenue grew by twelve percent",
    ])
    related, unrelated = float(cat @ kitten), float(cat @ revenue)
    assert related > 0.5
    assert unrelated < 0.15
    assert related - unrelated > 0.4


def test_vectors_match_independent_reference_pipeline(model: PackagedModelEmbedder) -> None:
    references = json.loads(REFERENCES.read_text())
    texts = list(references)
    vectors = model.embed(texts)
    for text, vector in zip(texts, vectors, strict=True):
        reference = np.asarray(references[text], dtype=np.float32)
        cosine = float(vector @ reference / np.linalg.norm(reference))
        assert cosine >= 0.999, (text, cosine)


def test_batching_does_not_change_vectors(model: PackagedModelEmbedder) -> None:
    texts = [f"note {i} about {'caching ' * (i % 7)}layers" for i in range(40)]
    together = model.embed(texts, batch_size=32)
    alone = np.vstack([model.embed_one(t) for t in texts[:5]])
    assert np.allclose(together[:5], alone, atol=1e-4)


def test_vectors_are_fastembeds_bit_for_bit(model: PackagedModelEmbedder,
                                            model_cache: Path) -> None:
    """The default model run directly gives the vectors fastembed gives from the same files:
    short and long texts (past the 256-token truncation), one at a time and padded together,
    so stores embedded by either search the same."""
    reference = FastEmbedEmbedder(DEFAULT_MODEL, 384,
                                  model_dir=lambda: offline.offline_model_dir(model_cache))
    texts = ["hi", "The cat sat on the mat.", "Ünïcödé naïve café — ok?", "x " * 600,
             "We chose LanceDB for the memory store because it embeds without a server.",
             " ".join(f"decision {i} about caching layers" for i in range(80))]
    ours, theirs = model.embed(texts, batch_size=4), reference.embed(texts, batch_size=4)
    assert ours.dtype == theirs.dtype == np.float32
    assert np.array_equal(ours, theirs)
    assert np.array_equal(model.embed_one(texts[3]), reference.embed_one(texts[3]))


def test_model_folder_has_the_files_fastembed_reads(model: PackagedModelEmbedder,
                                                    model_cache: Path) -> None:
    folder = offline.offline_model_dir(model_cache)
    names = {p.name for p in folder.iterdir()}
    assert {"model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json",
            "special_tokens_map.json"} <= names
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 256 and config["do_lower_case"] is True
    assert json.loads((folder / "config.json").read_text())["pad_token_id"] == 0


def test_a_damaged_model_file_is_refused(tmp_path: Path) -> None:
    path, expected = offline.packaged_onnx()
    damaged = tmp_path / "model.onnx"
    damaged.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(EmbedderUnavailableError, match="sha256.*force-reinstall"):
        offline.verify_onnx(damaged, expected)
    offline.verify_onnx(path, expected)


def test_unknown_model_name_is_a_clear_error() -> None:
    with pytest.raises(EmbedderUnavailableError, match="unknown embedding model 'no/such'"):
        loader.model_dimension("no/such")


def test_uncached_fastembed_model_does_not_download(tmp_path: Path) -> None:
    settings = Settings.from_env(embed_model="BAAI/bge-small-en-v1.5", model_cache=tmp_path)
    embedder = load_embedder(settings)
    assert embedder.dimension == 384
    with pytest.raises(EmbedderUnavailableError, match="never downloads"):
        embedder.embed(["x"])


def test_no_network_is_touched(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Load and run the model from a cold cache with every socket call failing loudly."""
    attempts: list[object] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("network is blocked in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(PackagedModelEmbedder, "_loaded_models", {})
    monkeypatch.setattr(loader, "_EMBEDDERS", {})
    monkeypatch.setattr(offline, "_verified", set())
    embedder = load_embedder(Settings.from_env(model_cache=tmp_path / "cold"))
    vectors = embedder.embed(["offline works"])
    assert vectors.shape == (1, 384)
    assert attempts == []


def test_writes_go_pending_when_the_model_cannot_load(tmp_path: Path) -> None:
    from memory_core.model.records import Memory
    from memory_core.store import MemoryStore

    settings = Settings.from_env(embed_model="BAAI/bge-small-en-v1.5", model_cache=tmp_path,
                                 store_uri=str(tmp_path / "store"))
    store = MemoryStore.open(settings=settings)
    report = store.add([Memory.new("written while the model is missing", "fact")])
    assert report.pending == 1 and "never downloads" in (report.embedding_error or "")
    assert store.get(report.inserted[0]).embedding_status == "pending"


def test_the_query_encoder_does_not_spin_between_queries(model: PackagedModelEmbedder) -> None:
    """Its onnxruntime threads sleep between runs, set on its own session only."""
    import onnxruntime

    options = model.session_options()
    assert {options.get_session_config_entry(key) for key in SPINNING} == {"0"}
    assert not _entries(onnxruntime.SessionOptions())


def test_fastembed_models_do_not_spin_either(model_cache: Path) -> None:
    """Other models run by fastembed get the same quiet threads (`quiet_threads.py`), and the
    patch that does it is gone once the model is loaded."""
    import onnxruntime
    from fastembed.common import onnx_model

    from memory_core.embedding.quiet_threads import spinning_of

    embedder = FastEmbedEmbedder(DEFAULT_MODEL, 384,
                                 model_dir=lambda: offline.offline_model_dir(model_cache))
    embedder.preload()
    assert set(spinning_of(embedder._load()).values()) == {"0"}
    assert onnx_model.ort is onnxruntime


def test_a_missing_model_package_is_pending_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the model package the embedder says what to install, as an error the store
    turns into pending writes."""
    def missing() -> tuple[Path, str]:
        raise EmbedderUnavailableError("the embedding model package is missing; run `pip ...`")

    monkeypatch.setattr(offline, "packaged_onnx", missing)
    embedder = PackagedModelEmbedder(DEFAULT_MODEL, 384, threads=1)
    monkeypatch.setattr(PackagedModelEmbedder, "_loaded_models", {})
    with pytest.raises(EmbedderUnavailableError, match="model package is missing"):
        embedder.embed(["x"])


def _entries(options: object) -> set[str]:
    out = set()
    for key in ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning"):
        try:
            options.get_session_config_entry(key)  # type: ignore[attr-defined]
            out.add(key)
        except Exception:  # noqa: BLE001 - unset entries raise
            pass
    return out
