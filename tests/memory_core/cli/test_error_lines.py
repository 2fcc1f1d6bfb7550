"""A user mistake is one short line: a 100 kB value is named, not echoed whole.

Messages name values with `shown` at their source; `one_line_errors` is the net for the rest
(click's own messages, the store's): terminal-safe, one line, at most 300 characters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.cli.output import one_line_errors
from memory_core.model.errors import MemlensError
from memory_core.model.untrusted import LINE_CHARS
from tests.conftest import run_cli
from tests.memory_core.cli.home import offline_home

BIG = "x" * 100_000
#: an error line's bytes: 300 characters, a few of them the 3-byte "…", and the newline
MAX_BYTES = LINE_CHARS + 20

#: (argv, exit code, what the line must still say)
MISTAKES = [
    (["ls", "--status", BIG], 1, "unknown status"),
    (["ls", "--importance", BIG], 1, "unknown importance"),
    (["ls", "--embedding-status", BIG], 1, "unknown embedding_status"),
    (["ls", "--since", BIG], 1, "is not ISO-8601"),
    (["ls", "--until", BIG], 1, "is not ISO-8601"),
    (["ls", "--limit", BIG], 1, "is not a valid integer"),
    (["ls", "--status", "\x1b[2J" * 25_000], 1, "unknown status"),
    (["search", "q", "--preset", BIG], 1, "is not one of 'vector'"),
    (["search", "q", "--status", BIG], 1, "unknown status"),
    (["recall", "q", "--tier", BIG], 1, "is not one of 'minimal'"),
    (["export", "e.ndjson", "--importance", BIG], 1, "unknown importance"),
    (["--tenant", BIG, "ls"], 1, "has no memories"),
    (["show", BIG], 1, "no memory with id"),
    ([BIG], 1, "No such command"),
    (["ls", f"--{BIG}"], 1, "No such option"),
    (["add", "x", "--metadata", BIG], 1, "--metadata is not JSON"),
    (["import", "f.ndjson", "--param", BIG], 1, "is not KEY=VALUE"),
    (["diff", "live", "live", "--ignore", BIG], 1, "to ignore"),
    (["diff", BIG, "live"], 1, "File name too long"),
    (["eval", "--queries", "{queries}", "--k", BIG], 1, "expected whole numbers"),
    (["eval", "--queries", "{queries}", "--as-of", BIG], 1, "expected an ISO-8601 date"),
    # accepted values (they match nothing): nothing long comes back either
    (["ls", "--project", BIG], 0, "0 of 0 matching memories"),
    (["ls", "--tag", BIG], 0, "0 of 0 matching memories"),
    (["ls", "--type", BIG], 0, "0 of 0 matching memories"),
    (["search", "q", "--project", BIG, "--tag", BIG, "--type", BIG], 0, "0 hits"),
]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> str:
    uri = offline_home(tmp_path, monkeypatch)
    code, _, err = run_cli(["--store", uri, "add", "one memory"], capsys)
    assert code == 0, err
    return uri


def _name(argv: list[str]) -> str:
    return " ".join(a if len(a) < 100 else f"<{len(a) // 1000} kB>" for a in argv)


@pytest.mark.parametrize(("argv", "code", "problem"), MISTAKES,
                         ids=[_name(argv) for argv, _, _ in MISTAKES])
def test_a_huge_value_gives_one_short_line(store: str, tmp_path: Path, argv: list[str],
                                           code: int, problem: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a.replace("{queries}", str(tmp_path / "queries.ndjson")) for a in argv]
    got, out, err = run_cli(["--store", store, *argv], capsys)
    assert got == code, err[:500]
    lines = [line for line in err.splitlines() if not line.startswith("degraded: ")]
    assert len(lines) == 1 and problem in lines[0], err[:500]
    assert len(lines[0].encode("utf-8")) < MAX_BYTES, lines[0]
    assert len(out.encode("utf-8")) < MAX_BYTES
    if code:
        assert lines[0].startswith("Error: ") and "\x1b" not in err


def test_the_net_caps_a_message_that_echoes_a_whole_value(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught, one_line_errors():
        raise MemlensError(f"tenant '{BIG}' has no memories\nsee `memlens stats`")
    err = capsys.readouterr().err
    assert caught.value.code == 1 and err.count("\n") == 1
    line = err.rstrip("\n")
    assert len(line) <= LINE_CHARS and "has no memories\\nsee `memlens stats`" in line


def test_the_operating_system_refusing_a_path_is_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught, one_line_errors():
        Path(BIG).exists()
    err = capsys.readouterr().err
    assert caught.value.code == 1 and err.startswith("Error: [Errno 36] File name too long")
    assert len(err) <= LINE_CHARS + 1
