"""`--queries demo`: the demo corpus' query set wherever memlens is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.cli.query_sets import QuerySetPath
from memory_core.seeding import DEMO_QUERIES, demo_file
from tests.conftest import run_cli


def test_demo_names_the_shipped_query_set(tmp_path: Path) -> None:
    assert QuerySetPath().convert("demo", None, None) == demo_file(DEMO_QUERIES)
    mine = tmp_path / "q.ndjson"
    mine.write_text("", encoding="utf-8")
    assert QuerySetPath().convert(str(mine), None, None) == mine


@pytest.mark.parametrize("command", [["eval"], ["tune"]])
def test_eval_and_tune_take_demo_and_go_on_to_the_store(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`demo` is not a missing file: the command gets as far as the (missing) store."""
    code, _, err = run_cli(["--store", str(tmp_path / "none"), *command, "--queries", "demo"],
                           capsys)
    assert code != 0 and "does not exist" not in err
    assert "there is no memlens store at" in err


def test_a_missing_query_file_is_still_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--store", str(tmp_path / "none"), "eval", "--queries",
                            str(tmp_path / "nope.ndjson")], capsys)
    assert code != 0 and "does not exist" in err


def test_init_takes_demo_or_from_not_both(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "mine.ndjson"
    export.write_text("", encoding="utf-8")
    code, _, err = run_cli(["--store", str(tmp_path / "s"), "init", "--demo", "--from",
                            str(export)], capsys)
    assert code != 0 and "give one of them" in err
    assert not (tmp_path / "s").exists()
