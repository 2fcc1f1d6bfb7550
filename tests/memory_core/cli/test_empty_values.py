"""An empty option value is a mistake, said in one line naming the option, never a filter.

`--since ""` used to apply no filter while `--project ""` matched nothing and `--tenant ""`
quietly used the default tenant: an unset shell variable changed what a command did.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from memory_core.cli import cli
from tests.conftest import run_cli
from tests.memory_core.cli.home import offline_home

#: (argv with one empty value, the option named, what leaving it out does)
EMPTY = [
    (["ls", "--project", ""], "--project", "to match every project"),
    (["ls", "--project", "herd", "--project", ""], "--project", "to match every project"),
    (["ls", "--repo", ""], "--repo", "to match every repo"),
    (["ls", "--agent", ""], "--agent", "to match every agent"),
    (["ls", "--session", ""], "--session", "to match every session"),
    (["ls", "--type", ""], "--type", "to match every memory type"),
    (["ls", "--tag", ""], "--tag", "to match whatever the tags"),
    (["ls", "--status", ""], "--status", "for the default (active)"),
    (["ls", "--importance", ""], "--importance", "to match every importance"),
    (["ls", "--embedding-status", ""], "--embedding-status", "to match every embedding"),
    (["ls", "--since", ""], "--since", "for no lower bound"),
    (["ls", "--until", ""], "--until", "for no upper bound"),
    (["search", "q", "--project", ""], "--project", "to match every project"),
    (["search", "q", "--agent", ""], "--agent", "to match every agent"),
    (["search", "q", "--type", ""], "--type", "to match every memory type"),
    (["search", "q", "--tag", ""], "--tag", "to match whatever the tags"),
    (["search", "q", "--status", ""], "--status", "for the default (active)"),
    (["export", "e.ndjson", "--status", ""], "--status", "for the default (all)"),
    (["export", "e.ndjson", "--since", ""], "--since", "for no lower bound"),
    (["recall", "q", "--type", ""], "--type", "to recall every memory type"),
    (["recall", "q", "--project-tag", ""], "--project-tag", "to recall from every project"),
    (["recall", "q", "--session", ""], "--session", "to recall without a session"),
    (["import", "f.ndjson", "--project", ""], "--project", "to import every project"),
    (["import", "f.ndjson", "--table", ""], "--table", "to let the format find it"),
    (["eval", "--queries", "{queries}", "--tag", ""], "--tag", "to score every query"),
    (["eval", "--queries", "{queries}", "--compare-model", ""], "--compare-model",
     "to compare ranking configs"),
    (["reembed", "--model", ""], "--model", "to embed the pending memories only"),
    (["ls", "--tenant", ""], "--tenant", "to use MEMLENS_TENANT (default 'default')"),
    (["ls", "--store", ""], "--store", "to use MEMLENS_STORE (default ./data/store)"),
]
GROUP = [
    (["--tenant", "", "ls"], "--tenant", "to use MEMLENS_TENANT (default 'default')"),
    (["--store", "", "ls"], "--store", "to use MEMLENS_STORE (default ./data/store)"),
]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> str:
    uri = offline_home(tmp_path, monkeypatch)
    for project in ("herd", ""):  # a memory may hold an empty project: the CLI never asks
        code, _, err = run_cli(["--store", uri, "add", f"about {project or 'nothing'}",
                                "--project", project], capsys)
        assert code == 0, err
    return uri


@pytest.mark.parametrize(("argv", "option", "unset"), EMPTY + GROUP,
                         ids=[" ".join(a) for a, _, _ in EMPTY + GROUP])
def test_an_empty_value_is_refused_naming_the_option(
        store: str, tmp_path: Path, argv: list[str], option: str, unset: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a.replace("{queries}", str(tmp_path / "queries.ndjson")) for a in argv]
    full = ["--store", store, *argv] if (argv[0], argv[1]) != ("--store", "") else argv
    code, out, err = run_cli(full, capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"Error: {option} is empty; leave the option out {unset}"), err


@pytest.mark.parametrize("name", ["ls", "search", "export", "recall"])
def test_every_text_option_of_a_filtering_command_refuses_empty(name: str) -> None:
    # a filter option added later without the check fails here
    text = [p for p in cli.commands[name].params
            if isinstance(p, click.Option) and p.type is click.STRING]
    assert text and all(p.callback is not None for p in text), name
    listed = {option for argv, option, _ in EMPTY if argv[0] == name}
    assert {p.opts[0] for p in text} <= listed | {"--store", "--tenant"} or name == "export"


def test_leaving_the_options_out_still_means_everything(
        store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--store", store, "ls", "--json"], capsys)
    assert code == 0 and sorted(m["content"] for m in json.loads(out)) == [
        "about herd", "about nothing"]
