"""Dates outside the range memlens accepts (`memory_core.model.date_range`) are one line naming the
option and the range, for every option that takes a date; they used to reach LanceDB as a
three-digit year and fail with the SQL predicate in a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.memory_core.cli.home import offline_home

RANGE = "outside the dates memlens accepts: 1900-01-01 to 9000-12-31 (UTC)"

OUT_OF_RANGE: list[list[str]] = [
    ["ls", "--since", "0999-01-01"],
    ["ls", "--until", "0001-01-01"],
    ["ls", "--since", "9999-12-31T23:59:59-05:00"],  # past year 9999 once in UTC
    ["export", "OUT", "--since", "0999-01-01"],
    ["export", "OUT", "--until", "0999-01-01"],
    ["archive", "--dry-run", "--since", "0999-01-01"],
    ["decay", "at-risk", "--as-of", "0001-01-01"],
    ["decay", "show", "m1", "--as-of", "0001-01-01"],
    ["decay", "impact", "token", "--as-of", "0001-01-01"],
    ["decay", "what-if", "--stability-scale", "0.5", "--as-of", "9999-12-31"],
    ["eval", "--queries", "queries.ndjson", "--as-of", "0001-01-01"],
    ["audit", "--since", "0001-01-01"],
    ["audit", "--until", "9999-12-31"],
]


@pytest.fixture
def uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> str:
    uri = offline_home(tmp_path, monkeypatch)
    lines = tmp_path / "m1.ndjson"
    lines.write_text('{"id": "m1", "content": "refresh token race"}\n', encoding="utf-8")
    code, _, err = run_cli(["--store", uri, "add", "--file", str(lines)], capsys)
    assert code == 0, err
    return uri


@pytest.mark.parametrize("argv", OUT_OF_RANGE, ids=" ".join)
def test_a_date_out_of_range_is_one_line_naming_the_option(
        uri: str, argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(tmp_path / "out.ndjson") if a == "OUT" else a for a in argv]
    flag = next(a for a in argv if a in ("--since", "--until", "--as-of"))
    code, _, err = run_cli(["--store", uri, *argv], capsys)
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err and "TIMESTAMP" not in err, err
    assert err.startswith(f"Error: {flag} is '{argv[argv.index(flag) + 1]}', {RANGE}"), err
    assert not (tmp_path / "out.ndjson").exists()


@pytest.mark.parametrize("argv, shown", [
    (["ls", "--since", "1900-01-01"], "refresh token race"),
    (["ls", "--until", "9000-12-31"], "refresh token race"),
    (["decay", "at-risk", "--as-of", "9000-12-31", "--within", "1"], ""),
    (["decay", "impact", "token", "--as-of", "1900-01-01"], "m1"),
])
def test_the_ends_of_the_range_are_accepted(uri: str, argv: list[str], shown: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--store", uri, *argv], capsys)
    assert code == 0, err
    assert shown in out
