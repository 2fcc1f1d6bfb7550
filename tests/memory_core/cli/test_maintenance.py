"""`memlens index` and `memlens reembed`: reports as JSON and text, pending vectors filled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_core.cli import cli, main
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import run_cli
from tests.memory_core.store.test_indexes import _corpus

run = run_cli


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    store.add(_corpus())  # 360 memories in 12 topics, embedded by the fake embedder
    return store


@pytest.mark.model
def test_reembed_fills_pending(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    store = str(tmp_path / "s")
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    code, out, _ = run(["--store", store, "add", "written offline"], capsys)
    assert code == 0 and "pending" in out
    monkeypatch.delenv("MEMLENS_EMBED_MODEL")
    code, out, _ = run(["--store", store, "reembed", "--json"], capsys)
    assert json.loads(out)["embedded"] == 1
    code, out, _ = run(["--store", store, "stats", "--json"], capsys)
    assert json.loads(out)["pending_embeddings"] == 0


def test_cli_index_reports_as_json_and_text(filled: MemoryStore) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["index", "--store", filled.uri, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["store"] == filled.uri and data["vector_index"] is False
    assert "content" in data["created"] and data["recall_at_10"] is None
    result = runner.invoke(cli, ["index", "--store", filled.uri, "--threshold", "300"])
    assert result.exit_code == 0, result.output
    assert "created   IVF_HNSW_SQ vector" in result.stdout
    assert "recall@10" in result.stdout and "history kept" in result.stdout
    assert runner.invoke(cli, ["index", "--store", filled.uri, "--threshold", "0"]
                         ).exit_code == 2


def test_cli_index_explains_what_it_built_and_why(filled: MemoryStore) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["index", "--store", filled.uri])
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    fts = next(line for line in lines if " content " in line)
    assert fts.startswith("created") and "BM25 full-text search" in fts
    assert any(line.startswith("created   BITMAP      status") and "handful of values" in line
               for line in lines)
    assert "why: 360 vectors < the threshold 20,000" in first.stdout
    filled.add([Memory.new("one more memory written after the index", "observation")])
    again = runner.invoke(cli, ["index", "--store", filled.uri, "--threshold", "300"])
    assert again.exit_code == 0, again.output
    assert "refreshed FTS" in again.stdout and "(+1 rows folded in)" in again.stdout
    assert "why: 361 vectors >= the threshold 300" in again.stdout
    assert "IVF_HNSW_SQ (one partition" in again.stdout
    data = json.loads(runner.invoke(cli, ["index", "--store", filled.uri, "--json"]).stdout)
    assert data["vector_index"] is True and "an index exists" in data["vector_reason"]
    assert all(action["reason"] for action in data["actions"])


def test_cli_index_through_main(filled: MemoryStore,
                                capsys: pytest.CaptureFixture[str]) -> None:
    main(["--store", filled.uri, "index", "--json"])
    assert json.loads(capsys.readouterr().out)["rows"] == 360
