"""`memlens search` and `memlens recall`: presets, config files, explanations, mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.retrieval.config import preset
from tests.conftest import run_cli

run = run_cli
pytestmark = pytest.mark.model  # the CLI embeds with the real model by default


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    uri = str(tmp_path / "s")
    for content, project in (("Prefer uv over pip for installs", "herd"),
                             ("CI cache keys must include the lockfile hash", "atlas")):
        code, _, err = run(["--store", uri, "add", content, "--project", project], capsys)
        assert code == 0, err
    return uri


def _engines(out: str) -> list[set[str]]:
    return [set(hit["explanation"]["engines"]) for hit in json.loads(out)["hits"]]


def test_search_ranks_with_the_default_preset_and_explains(
        store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--store", store, "search", "uv pip", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["query"] == "uv pip" and not doc["degraded"]
    assert doc["hits"][0]["memory"]["content"] == "Prefer uv over pip for installs"
    assert _engines(out)[0] == {"vector", "bm25"}  # hybrid_graph fuses both
    code, out, err = run(["--store", store, "search", "uv pip", "--preset", "bm25",
                          "--explain"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and "Prefer uv over pip" in lines[0]
    # convex fusion of one engine: its only hit normalises to 1 and takes the whole weight
    assert lines[1].split(";")[0].strip() == "bm25 #1 (+1.0000)"
    assert "1 hits in" in err


def test_search_filters_by_project(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--store", store, "search", "uv pip", "--project", "atlas", "--json"],
                       capsys)
    assert code == 0
    assert [h["memory"]["project"] for h in json.loads(out)["hits"]] == ["atlas"]


def test_config_file_overrides_the_preset(store: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "lexical.json"
    config.write_text(preset("bm25").to_json(), encoding="utf-8")
    code, out, _ = run(["--store", store, "search", "uv pip", "--preset", "vector",
                        "--config", str(config), "--json"], capsys)
    assert code == 0 and _engines(out) == [{"bm25"}]


def test_recall_prints_items_and_skips_what_a_session_has_seen(
        store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--store", store, "recall", "uv pip", "--preset", "bm25", "--json",
                        "--session", "s1"], capsys)
    items = json.loads(out)["items"]
    assert code == 0 and [i["content"] for i in items] == ["Prefer uv over pip for installs"]
    code, out, _ = run(["--store", store, "recall", "uv pip", "--preset", "bm25",
                        "--session", "s1"], capsys)
    assert code == 0 and out.strip() == "(nothing new to recall)"
    code, out, _ = run(["--store", store, "recall", "uv pip"], capsys)
    assert code == 0 and out.startswith("[observation] Prefer uv over pip for installs")


@pytest.mark.parametrize("argv, message", [
    (["search", "x", "--preset", "fast"], "Invalid value for '--preset'"),
    (["recall", "x", "--preset", "fast"], "Invalid value for '--preset'"),
    (["search", "x", "--config", "{bad}"], "is not a RankingConfig JSON object"),
    (["search", "x", "--config", "{list}"], "is not a RankingConfig JSON object"),
    (["recall", "x", "--config", "{unknown}"], "unknown ranking option(s) colour"),
    (["search", "x", "--limit", "0"], "Invalid value for '--limit'"),
    (["search", "x", "--tenant", "ghost"], "tenant 'ghost' has no memories"),
])
def test_mistakes_are_one_line_and_exit_1(store: str, tmp_path: Path, argv: list[str],
                                          message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    files = {"bad": "[1, 2", "list": "[1, 2]", "unknown": '{"colour": "red"}'}
    for name, text in files.items():
        (tmp_path / f"{name}.json").write_text(text)
    argv = [str(tmp_path / f"{a[1:-1]}.json") if a.startswith("{") else a for a in argv]
    code, out, err = run(["--store", store, *argv], capsys)
    assert code == 1 and message in err, err
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
