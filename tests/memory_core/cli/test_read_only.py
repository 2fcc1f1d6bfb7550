"""Read-only mode on the command line: `--read-only` (on `memlens` or on the command) and
MEMLENS_READ_ONLY=1 make every writing command fail with one line and exit 1, changing no
table version, while the reading commands work as usual."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memory_core.embedding as embedding
import memory_core.store.memory_store as memory_store
from memory_core.curation import archive
from memory_core.exchange.export import export_store
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

REFUSAL = "is open read-only (--read-only or MEMLENS_READ_ONLY), so "


class Home:
    """A populated store of the fake embedder (which `memlens` opens too) and input files."""

    def __init__(self, root: Path) -> None:
        writer = MemoryStore.open(str(root / "store"), embedder=FakeEmbedder())
        writer.add([Memory.new("refresh token race fixed with a mutex", "decision",
                               id="m1", project="atlas"),
                    Memory.new("prefer uv over pip for installs", "preference", id="m2",
                               project="herd")])
        writer.edges.add([Edge.new("m2", "m1", "related_to")])
        self.batch = archive(writer, ["m2"]).batch_id  # a curation batch to undo
        self.uri = writer.uri
        self.export = root / "export.ndjson"
        export_store(writer, self.export, with_vectors=True)
        self.lines = root / "lines.ndjson"
        self.lines.write_text('{"id": "m1", "content": "refresh token race, revised"}\n',
                              encoding="utf-8")
        self.queries = root / "queries.ndjson"
        self.queries.write_text('{"qid": "q1", "query": "token race", "relevant": {"m1": 1}}\n',
                                encoding="utf-8")
        self.root = root

    def versions(self) -> dict[str, int]:
        return MemoryStore.open(self.uri, embedder=FakeEmbedder(),
                                read_only=True).table_versions()

    def argv(self, command: list[str]) -> list[str]:
        """`command` with the paths it names filled in."""
        paths = {"EXPORT": str(self.export), "LINES": str(self.lines), "BATCH": self.batch,
                 "QUERIES": str(self.queries), "OUT": str(self.root / "out.ndjson"),
                 "DRILL": str(self.root / "drill")}
        return [paths.get(part, part) for part in command]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    monkeypatch.setattr(embedding, "load_embedder", lambda settings=None: FakeEmbedder())
    return Home(tmp_path)


#: Every command that writes, and the action its refusal names.
WRITES: list[tuple[list[str], str]] = [
    (["add", "a new fact"], "so add is"),
    (["add", "--file", "LINES"], "so add is"),
    (["add", "--file", "LINES", "--upsert"], "so upsert is"),
    (["import", "EXPORT", "--mode", "merge"], "so import is"),
    (["import", "EXPORT"], "--dry-run checks a file without writing"),
    (["init"], "so init is"),
    (["init", "--from", "EXPORT"], "so init is"),
    (["reembed"], "so reembed is"),
    (["reembed", "--model", "test/other"], "so reembed --model is"),
    (["index"], "so `memlens index` is"),
    (["index", "--force-vector"], "so `memlens index` is"),
    (["drill", "--export-dir", "DRILL"], "so drill is"),
    (["drill", "--drop-tables", "--export-dir", "DRILL"], "so drill is"),
    (["edit", "m1", "--why", "x", "--yes"], "so edit is"),
    (["archive", "m1", "--yes"], "so archive is"),
    (["restore", "m2", "--yes"], "so restore is"),
    (["supersede", "m1", "--content", "a successor", "--yes"], "so supersede is"),
    (["merge", "m1", "m2", "--into", "m1", "--yes"], "so merge is"),
    (["delete", "m1", "--yes"], "so delete is"),
    (["delete", "m1", "--purge", "--yes"], "so purge is"),
    (["undo", "BATCH", "--yes"], "so undo is"),
    (["correct", "m1", "--verdict", "rejected"], "so correct is"),
    (["correct", "m1", "--kind", "superseded", "--by", "m2"], "so correct is"),
    (["cite", "m1", "m2"], "so cite is"),
]

#: The three ways to ask for read-only mode.
WAYS = ["group flag", "command flag", "environment"]


def _read_only(argv: list[str], uri: str, way: str, monkeypatch: pytest.MonkeyPatch
               ) -> list[str]:
    if way == "environment":
        monkeypatch.setenv("MEMLENS_READ_ONLY", "1")
        return ["--store", uri, *argv]
    if way == "group flag":
        return ["--read-only", "--store", uri, *argv]
    return [argv[0], "--read-only", "--store", uri, *argv[1:]]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("command, action", WRITES, ids=[" ".join(c) for c, _ in WRITES])
def test_every_writing_command_fails_with_one_line(
        home: Home, command: list[str], action: str, way: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    before = home.versions()
    code, out, err = run_cli(_read_only(home.argv(command), home.uri, way, monkeypatch),
                           capsys)
    assert code == 1, (out, err)
    assert err.endswith("\n") and err.count("\n") == 1, err  # one line
    assert err.startswith(f"Error: the store {home.uri} {REFUSAL}"), err
    assert action in err
    assert home.versions() == before
    assert not list(home.root.glob("drill/*"))  # the drill exported nothing either


def test_init_of_a_missing_store_says_read_only_not_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    uri = str(tmp_path / "none")
    code, _, err = run_cli(["--read-only", "--store", uri, "init"], capsys)
    assert code == 1 and err.startswith(f"Error: the store {uri} {REFUSAL}init is refused")
    assert not Path(uri).exists()


def test_a_read_only_command_does_not_create_a_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    uri = str(tmp_path / "none")
    code, _, err = run_cli(["--store", uri, "ls", "--read-only"], capsys)
    assert code == 1 and f"there is no memlens store at {uri}" in err
    assert not Path(uri).exists()


#: Commands that only read, each with what its output must hold.
READS: list[tuple[list[str], str]] = [
    (["search", "token race"], "m1"),
    (["recall", "token race"], "refresh token race"),
    (["recall", "token race", "--session", "s1"], "refresh token race"),
    (["ls"], "m1"),
    (["show", "m1"], "refresh token race"),
    (["stats"], "memories 2"),
    (["export", "OUT"], "exported 2 memory, 1 edge"),
    (["diff", "EXPORT", "live"], "memory: 0 added, 0 removed, 0 changed, 2 unchanged"),
    (["eval", "--queries", "QUERIES"], "recall@5"),
    (["import", "EXPORT", "--mode", "merge", "--dry-run"], "dry run, nothing written"),
    (["archive", "m1", "--dry-run"], "would change 1 memory"),
    (["audit"], "archive"),
    (["correct", "m1", "--verdict", "rejected", "--dry-run"], "would change 1 memory"),
    (["events"], ""),
    (["decay", "show", "m1"], "refresh token race"),
    (["decay", "at-risk", "--within", "100000"], "m1"),
]


@pytest.mark.parametrize("command, expected", READS, ids=[" ".join(c) for c, _ in READS])
def test_reading_commands_work_read_only(
        home: Home, command: list[str], expected: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    before = home.versions()
    code, out, err = run_cli(_read_only(home.argv(command), home.uri, "group flag",
                                        monkeypatch), capsys)
    assert code == 0, err
    assert expected in out
    assert home.versions() == before


def test_recall_read_only_records_no_access(
        home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--read-only", "--store", home.uri, "recall", "token race",
                            "--json"], capsys)
    assert code == 0 and json.loads(out)["items"]
    reader = MemoryStore.open(home.uri, embedder=FakeEmbedder(), read_only=True)
    assert reader.get("m1").access_count == 0


def test_command_flag_cannot_be_undone_by_leaving_it_out(
        home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    """`memlens --read-only add X`: the command's own flag, absent, keeps the group's."""
    code, _, err = run_cli(["--read-only", "--store", home.uri, "add", "x", "--tenant",
                            "default"], capsys)
    assert code == 1 and REFUSAL in err


def test_serve_read_only_passes_it_on_and_seeds_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.cli.memories as memories

    uri = str(tmp_path / "store")
    MemoryStore.open(uri, embedder=FakeEmbedder())  # exists, empty
    calls: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(memories.subprocess, "call",
                        lambda args, env: calls.append((args, env)) or 0)
    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    code, _, err = run_cli(["--store", uri, "serve", "--read-only"],
                           capsys)
    assert code == 0, err
    [(args, env)] = calls
    assert args[args.index("--") + 1:] == ["--store", uri, "--tenant", "default",
                                           "--read-only"]
    assert env["MEMLENS_READ_ONLY"] == "1"
    assert "is read-only, so it is not seeded" in err
    assert MemoryStore.open(uri, embedder=FakeEmbedder()).count() == 0
    calls.clear()
    code, _, _ = run_cli(["--store", uri, "serve", "--no-seed"], capsys)
    [(args, env)] = calls
    assert "--read-only" not in args and "MEMLENS_READ_ONLY" not in env


@pytest.mark.parametrize("value", ["2", "y", "enabled", "ro", "t", "read-only"])
def test_an_unrecognised_read_only_value_is_refused_not_taken_for_off(
        home: Home, value: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """MEMLENS_READ_ONLY=ro used to mean "off": the write went through."""
    before = home.versions()
    monkeypatch.setenv("MEMLENS_READ_ONLY", value)
    code, _, err = run_cli(["--store", home.uri, "add", "a new fact"], capsys)
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith(f"Error: MEMLENS_READ_ONLY is '{value}', which is neither yes nor no")
    assert "1, true, yes, on" in err and "0, false, no, off" in err
    monkeypatch.delenv("MEMLENS_READ_ONLY")
    assert home.versions() == before


@pytest.mark.parametrize("value", ["0", "false", "No", " off ", ""])
def test_the_off_spellings_of_read_only_leave_writes_on(
        home: Home, value: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLENS_READ_ONLY", value)
    code, out, err = run_cli(["--store", home.uri, "add", "a new fact"], capsys)
    assert code == 0, err
