"""A working folder for CLI tests that need no model: no embedding, a tiny query set."""

from __future__ import annotations

from pathlib import Path

import pytest


def offline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Work in `tmp_path` without the model (memories are written pending), with a one-line
    `queries.ndjson`; returns the store URI to use there."""
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "queries.ndjson").write_text(
        '{"qid": "q1", "query": "what", "relevant": {"m1": 1}}\n', encoding="utf-8")
    return str(tmp_path / "store")
