"""`memlens bench ingest | search | exchange`: help everywhere, a small exchange run."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

run = run_cli


def test_help_of_every_bench_command(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["bench"], ["bench", "ingest"], ["bench", "search"], ["bench", "exchange"]):
        code, out, _ = run([*argv, "--help"], capsys)
        assert code == 0 and "Usage: memlens" in out, argv


def test_bench_exchange_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["bench", "exchange", "--n", "300", "--json"], capsys)
    figures = json.loads(out)
    assert code == 0 and figures["n"] == 300 and figures["diff_changed_records"] == 3
    assert figures["export_within_target"] and set(figures["rss_growth_mib"]) == {
        "export", "export_vectors", "import_vectors", "diff"}


@pytest.mark.parametrize("argv, message", [
    (["bench", "exchange", "--n", "99"], "--n must be at least 100"),
    (["bench", "ingest", "--n", "0"], "--n and --single-adds must be at least 1"),
    (["bench", "search", "--n", "10"], "Invalid value for '--n'"),
])
def test_too_small_runs_are_one_line_and_exit_1(argv: list[str], message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert code == 1 and message in err
    assert len(err.strip().splitlines()) == 1
