"""A memory cannot drive the reviewer's terminal: human-readable output escapes every control.

Memories are written by agents; their content, project, agent, tags and rationale reach the
terminal of whoever runs `memlens show/ls/search/recall`. Checked on captured output, on a
real pseudo-terminal (where click strips nothing), and on the code: every print of
`memory_core/cli` goes through `output.echo`.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import pty
import select
import subprocess
import sys
import termios
from pathlib import Path

import pytest

import memory_core.cli
from memory_core.model.config import Settings
from memory_core.model.errors import MemlensError
from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import run_cli

CLI_DIR = Path(memory_core.cli.__file__).parent
ROOT = CLI_DIR.parents[1]

#: clipboard write (OSC 52), window title (OSC 0), clear screen (CSI), C1 CSI, a CR overwrite
ATTACK = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x9b31m\rOVERWRITTEN"
#: what each piece looks like once escaped
SHOWN = "\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x0dOVERWRITTEN"

#: the commands that print memories: (argv after --store, what their output must show)
READERS = [
    (["show", "{id}"], ["content", "project", "agent", "tags", "why", "audit"]),
    (["ls"], []),
    (["search", "deploy"], []),
    (["search", "deploy", "--explain"], []),
    (["recall", "deploy", "--tier", "full"], []),
    (["stats"], ["project", "agent"]),
]


def terminal_controls(text: str) -> list[str]:
    """The characters of `text` a terminal would obey: C0 but newline and tab, DEL, C1."""
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(store uri, memory id): one memory whose every text field carries the attack."""
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # no model: bm25 finds it, no vectors
    uri = str(tmp_path / "store")
    store = MemoryStore.open(settings=Settings.from_env(store_uri=uri))
    memory = Memory.new(f"deploy notes {ATTACK}", "decision", project=f"p{ATTACK}",
                        agent=f"a{ATTACK}", tags=[f"t{ATTACK}"], why=f"w{ATTACK}")
    store.add([memory], reason=f"r{ATTACK}")
    return uri, memory.id


@pytest.mark.parametrize(("argv", "fields"), READERS,
                         ids=[" ".join(a for a in argv if a != "{id}") for argv, _ in READERS])
def test_captured_output_has_no_terminal_controls(
        hostile: tuple[str, str], argv: list[str], fields: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    uri, memory_id = hostile
    code, out, err = run_cli(["--store", uri, *[a.format(id=memory_id) for a in argv]], capsys)
    assert code == 0, err
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    assert "\\x1b]52;c;ZXZpbA==\\x07" in out  # shown, escaped, not dropped
    for name in fields:
        assert any(line.strip().startswith(f"{name}:") and "\\x1b]0;pwned" in line
                   for line in out.splitlines()), name


def test_json_output_is_json_as_it_was(hostile: tuple[str, str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from memory_core.model.canonical import memory_doc

    uri, memory_id = hostile
    code, out, _ = run_cli(["--store", uri, "ls", "--json"], capsys)
    store = MemoryStore.open(settings=Settings.from_env(store_uri=uri))
    expected = [memory_doc(store.get(memory_id))]
    assert code == 0
    assert out == json.dumps(expected, indent=2, ensure_ascii=False, default=str) + "\n"
    assert json.loads(out)[0]["content"] == f"deploy notes {ATTACK}"


def _on_a_terminal(argv: list[str], env: dict[str, str]) -> bytes:
    """What `python -m memory_core.cli ARGV` writes to a pseudo-terminal (stdout and stderr)."""
    leader, follower = pty.openpty()
    attrs = termios.tcgetattr(follower)
    attrs[1] &= ~termios.OPOST  # keep "\n" as written: a "\r" in the output is the CLI's
    termios.tcsetattr(follower, termios.TCSANOW, attrs)
    process = subprocess.Popen([sys.executable, "-m", "memory_core.cli", *argv], cwd=ROOT,
                               env=env, stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=follower, close_fds=True)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            process.kill()
            raise TimeoutError(f"memlens {argv} wrote nothing for 120 s")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the follower side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=120) == 0, b"".join(chunks)
    return b"".join(chunks)


@pytest.mark.slow
def test_a_real_terminal_receives_no_escape_sequence(hostile: tuple[str, str]) -> None:
    uri, memory_id = hostile
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMLENS_EMBED_MODEL": "none",
           "PYTHONIOENCODING": "utf-8"}
    for argv, _ in READERS[:5]:  # show, ls, search, search --explain, recall
        raw = _on_a_terminal(["--store", uri, *[a.format(id=memory_id) for a in argv]], env)
        assert b"\x1b" not in raw and b"\r" not in raw and b"\x07" not in raw, argv
        text = raw.decode("utf-8")  # C1 controls are two UTF-8 bytes: look at characters
        assert terminal_controls(text) == [], argv
        assert "\\x1b]52;c;ZXZpbA==\\x07" in text, argv


def test_warnings_of_the_engine_are_escaped_too(hostile: tuple[str, str],
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    def store_stats(store: MemoryStore) -> None:
        logging.getLogger("memory_core.stats").warning("bad row %s", f"x{ATTACK}")
        raise MemlensError("stopped here")

    monkeypatch.setattr("memory_core.stats.store_stats", store_stats)
    code, _, err = run_cli(["--store", hostile[0], "stats"], capsys)
    assert code == 1 and terminal_controls(err) == []
    assert err == f"bad row x{SHOWN}\nError: stopped here\n"
    handlers = logging.getLogger("memory_core").handlers
    assert handlers == [], handlers  # only while the command ran


def test_error_lines_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    MemoryStore.open(str(tmp_path / "s"))  # an empty store: `ls` creates none
    code, _, err = run_cli(["--store", str(tmp_path / "s"), "ls", "--status", ATTACK], capsys)
    assert code == 1 and terminal_controls(err) == [] and "unknown status" in err


# -- every print goes through echo ---------------------------------------------------------

#: the functions of output.py allowed to print: `echo` (text, escaped) and `emit_json`
#: (JSON escapes C0 itself, and `--json` output stays byte for byte what it was)
SINKS = {"echo", "emit_json"}
PRINTERS = {"click.echo", "click.secho", "print", "sys.stdout.write", "sys.stderr.write",
            "click.get_text_stream", "click.echo_via_pager", "click.style", "tqdm.write"}


def unsafe_prints(source: str) -> list[str]:
    """`function: call` for every print-like call outside the allowed sinks."""
    tree = ast.parse(source)
    found = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = child.name if function == "<module>" else function
            if isinstance(child, ast.Call):
                called = ast.unparse(child.func)
                if called in PRINTERS and name not in SINKS:
                    found.append(f"{name}: {called}")
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_every_print_of_the_cli_goes_through_echo() -> None:
    offenders = []
    for path in sorted(CLI_DIR.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        offenders += [f"{path.name} {line}" for line in unsafe_prints(source)]
        if path.name != "output.py":  # the sinks are output.py's, not a local look-alike
            defined = {n.name for n in ast.walk(ast.parse(source))
                       if isinstance(n, ast.FunctionDef)}
            assert not defined & SINKS, path.name
    assert offenders == []


def test_the_print_scan_finds_raw_prints() -> None:
    bad = ("import click, sys\n"
           "def show(m):\n    click.echo(m.content)\n"
           "def lst():\n    print('x')\n    sys.stdout.write('y')\n"
           "def echo(t):\n    click.echo(t)\n"
           "def helper():\n    def echo(t):\n        click.secho(t)\n")
    assert unsafe_prints(bad) == ["show: click.echo", "lst: print", "lst: sys.stdout.write",
                                  "helper: click.secho"]
