"""`memlens edit | archive | restore | supersede | merge | delete | undo | audit |
verify-deleted`: previewed, confirmed, undoable, one-line mistakes, escaped output.

Run in-process against a real LanceDB store in tmp_path, embedded by the fake embedder.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.cli.test_terminal import terminal_controls

#: ANSI colour, a carriage-return overwrite and a right-to-left override
HOSTILE = "plain \x1b[31mred\rOVERWRITE \u202etxt.exe"


class Home:
    """A store with memories a1, a2 (project herd, linked a1 -> a2), b1 (atlas), an archived
    z1 (herd), a hostile one (evil), and acme-1 in tenant acme; runs `memlens` on it."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
        self.tmp, self.monkeypatch, self.capsys = tmp_path, monkeypatch, capsys
        self.uri = str(tmp_path / "store")
        store = self.store()
        store.add([
            Memory.new("ci cache key includes the lockfile hash", "decision", id="a1",
                       project="herd", tags=["ci"]),
            Memory.new("the ci cache key once missed the lockfile", "observation", id="a2",
                       project="herd", tags=["cache"]),
            Memory.new("prefer uv over pip for installs", "preference", id="b1",
                       project="atlas"),
            Memory.new("an old note about zebra migrations", id="z1", project="herd",
                       status="archived"),
            Memory.new(f"deploy notes {HOSTILE}", id="evil", project=f"p{HOSTILE}",
                       tags=[f"t{HOSTILE}"]),
        ])
        store.edges.add([Edge.new("a1", "a2", "caused")])
        MemoryStore.open(self.uri, tenant="acme", embedder=FakeEmbedder()).add(
            [Memory.new("acme caches the lockfile too", id="acme-1", project="herd")])

    def store(self) -> MemoryStore:
        return MemoryStore.open(self.uri, embedder=FakeEmbedder())

    def run(self, *argv: str, answer: str = "") -> tuple[int, str, str]:
        """`memlens --store URI ARGV` with `answer` on stdin: (exit code, stdout, stderr)."""
        self.monkeypatch.setattr("sys.stdin", io.StringIO(answer))
        return run_cli(["--store", self.uri, *argv], self.capsys)

    def ok(self, *argv: str, answer: str = "") -> str:
        code, out, err = self.run(*argv, answer=answer)
        assert code == 0, err
        return out

    def versions(self) -> dict[str, int]:
        return self.store().table_versions()

    def export(self) -> list[str]:
        """The body of a fresh export (the manifest line has the time of export)."""
        path = self.tmp / "export.ndjson"
        self.ok("export", str(path))  # every status
        return path.read_text(encoding="utf-8").splitlines()[1:]

    def memory(self, memory_id: str) -> Memory:
        """The memory as stored now, with its vector."""
        return self.store().get_many([memory_id], with_vectors=True)[memory_id]

    def last_batch(self) -> str:
        batches = json.loads(self.ok("audit", "--json", "--limit", "1"))
        return str(batches[0]["batch_id"])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> Home:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    return Home(tmp_path, monkeypatch, capsys)


#: One write of each command (with --yes left to the test), and what it does to a1/b1/...
WRITES: dict[str, list[str]] = {
    "edit": ["edit", "a1", "--content", "ci cache key includes the uv.lock hash",
             "--tag", "ci", "--tag", "uv", "--importance", "important"],
    "archive": ["archive", "a1", "a2"],
    "archive by filter": ["archive", "--project", "herd"],
    "restore by filter": ["restore", "--project", "herd"],
    "supersede": ["supersede", "a1", "--content", "cache keys hash uv.lock and the python"],
    "supersede by": ["supersede", "a2", "--by", "a1"],
    "merge": ["merge", "a1", "a2", "--into", "a1"],
    "delete": ["delete", "a1", "b1"],
    "delete by filter": ["delete", "--project", "atlas"],
    "purge": ["delete", "b1", "--purge"],
}


# -- each command changes the store as its output says -------------------------------------

def test_archive_then_restore_by_ids_and_filter(home: Home) -> None:
    out = home.ok("archive", "a1", "a2", "--reason", "stale", "--yes")
    assert out.splitlines()[0].startswith("archive: changed 2 memories; batch ")
    assert "  a1  status: 'active' -> 'archived'" in out
    assert "  a2  status: 'active' -> 'archived'" in out
    assert {home.memory(i).status for i in ("a1", "a2")} == {"archived"}
    assert home.memory("b1").status == "active"
    # restore by filter: no --status means archived ones (z1 too), never active ones
    out = home.ok("restore", "--project", "herd", "--yes")
    assert out.startswith("restore: changed 3 memories")
    assert {home.memory(i).status for i in ("a1", "a2", "z1")} == {"active"}


def test_archive_by_filter_takes_active_memories_only(home: Home) -> None:
    doc = json.loads(home.ok("archive", "--project", "herd", "--yes", "--json"))
    assert sorted(doc["memory_ids"]) == ["a1", "a2"]  # z1 is archived already
    assert doc["action"] == "archive" and doc["batch_id"] and doc["dry_run"] is False
    assert home.memory("z1").status == "archived"


def test_edit_changes_fields_and_reembeds(home: Home) -> None:
    before = home.memory("a1")
    out = home.ok(*WRITES["edit"], "--metadata", '{"ticket": 7}', "--yes")
    after = home.memory("a1")
    assert after.content == "ci cache key includes the uv.lock hash"
    assert after.tags == ("ci", "uv") and after.importance == "important"
    assert after.metadata == {"ticket": 7}
    assert after.content_hash != before.content_hash and after.vector != before.vector
    assert after.vector == pytest.approx(
        tuple(FakeEmbedder().embed_batch([after.content])[0]), abs=1e-6)
    assert ("  a1  content: 'ci cache key includes the lockfile hash' -> "
            "'ci cache key includes the uv.lock hash'") in out
    assert "  a1  tags: ['ci'] -> ['ci', 'uv']" in out
    assert "content_hash" not in out  # follows the content: --json has it


def test_edit_refuses_a_duplicate_unless_allowed(home: Home) -> None:
    versions = home.versions()
    code, _, err = home.run("edit", "a2", "--content", "prefer uv over pip for installs",
                            "--yes")
    assert code == 1 and "memory 'b1' already holds this content" in err
    assert home.versions() == versions
    home.ok("edit", "a2", "--content", "prefer uv over pip for installs", "--allow-duplicate",
            "--yes")
    assert home.memory("a2").content == home.memory("b1").content


def test_supersede_with_content_and_by(home: Home) -> None:
    doc = json.loads(home.ok(*WRITES["supersede"], "--yes", "--json"))
    (new_id,) = doc["created"]
    new = home.memory(new_id)
    assert new.content == "cache keys hash uv.lock and the python" and new.project == "herd"
    assert home.memory("a1").status == "superseded"
    edges = home.store().edges.list(memory_id=new_id)
    assert [(e.source_id, e.relation, e.target_id) for e in edges] == [
        (new_id, "supersedes", "a1")]
    out = home.ok("supersede", "a2", "--by", "b1", "--yes")
    assert "  a2  status: 'active' -> 'superseded'" in out
    assert "added: b1 -supersedes-> a2" in out


def test_merge_moves_edges_and_supersedes_the_others(home: Home) -> None:
    home.store().edges.add([Edge.new("b1", "a2", "supports")])
    out = home.ok("merge", "a1", "a2", "--into", "a1", "--reason", "duplicates", "--yes")
    assert out.startswith("merge: changed 2 memories")
    survivor, other = home.memory("a1"), home.memory("a2")
    assert survivor.tags == ("ci", "cache") and survivor.metadata["merged_from"] == ["a2"]
    assert other.status == "superseded"
    edges = {(e.source_id, e.relation, e.target_id) for e in home.store().edges.list()}
    # a1 -caused-> a2 would be a self loop once moved: dropped; b1's edge now points at a1
    assert edges == {("b1", "supports", "a1"), ("a1", "supersedes", "a2")}
    assert "removed: a1 -caused-> a2" in out and "moved: b1 -supports-> a2 => " \
        "b1 -supports-> a1" in out


def test_delete_then_verify_deleted_passes(home: Home) -> None:
    out = home.ok("delete", "b1", "--yes")
    assert out.startswith("delete: changed 1 memory; 1 deleted")
    assert "  deleted: b1 " in out and "prefer uv over pip" in out
    assert "memlens undo " in out
    assert home.store().get_many(["b1"]) == {}
    code, out, err = home.run("verify-deleted", "b1")
    assert code == 0, out + err
    assert "  pass  live table" in out and "verification passed for 1 memory" in out
    doc = json.loads(home.ok("verify-deleted", "b1", "--json"))
    assert doc["passed"] is True and doc["purged"] is False
    assert {c["name"]: c["status"] for c in doc["checks"]}["table versions on disk"] == "info"


def test_verify_deleted_fails_with_exit_1_for_a_live_memory(home: Home) -> None:
    code, out, err = home.run("verify-deleted", "b1")
    assert code == 1 and "  fail  live table" in out
    assert err.startswith("Error: live table: ") and len(err.splitlines()) == 1


def test_purge_asks_for_the_count_then_verifies(home: Home) -> None:
    home.ok("archive", "a1", "--yes")
    earlier = home.last_batch()
    code, out, err = home.run(*WRITES["purge"], answer="1\n")
    assert code == 0, err
    assert "warning: a purge cannot be undone" in err and "export files" in err
    assert "purge: changed 1 memory; 1 purged" in out
    assert "memlens undo" not in out
    assert "  pass  table versions on disk" in out and "verification passed" in out
    assert home.store().get_many(["b1"]) == {}
    code, _, err = home.run("undo", earlier, "--yes")  # the purge dropped older versions
    assert code == 1 and "is no longer on disk (a purge removes older versions)" in err
    code, out, _ = home.run("verify-deleted", "b1", "--json")
    assert code == 0 and json.loads(out)["purged"] is True
    code, _, err = home.run("undo", home.last_batch(), "--yes")
    assert code == 1 and "was a purge" in err


def test_purge_with_yes_and_json_carries_the_verification(home: Home) -> None:
    doc = json.loads(home.ok(*WRITES["purge"], "--yes", "--json"))
    assert doc["purged"] is True and doc["verification"]["passed"] is True
    assert any("export files" in note for note in doc["notes"])


@pytest.mark.parametrize("typed", ["2", "", "one", "1 memory"])
def test_purge_with_a_wrong_count_does_nothing(home: Home, typed: str) -> None:
    versions = home.versions()
    code, _, err = home.run(*WRITES["purge"], answer=f"{typed}\n")
    assert code == 1
    assert err.splitlines()[-1] == f"Error: you typed {typed!r}, not 1: nothing was purged"
    assert home.versions() == versions and home.memory("b1").content


# -- previews and confirmation -------------------------------------------------------------

@pytest.mark.parametrize("name", list(WRITES))
def test_dry_run_writes_nothing(home: Home, name: str) -> None:
    versions, body = home.versions(), home.export()
    versions = home.versions()  # the export above read, it wrote nothing
    out = home.ok(*WRITES[name], "--dry-run")
    assert "would change" in out.splitlines()[0]
    assert home.versions() == versions and home.export() == body
    doc = json.loads(home.ok(*WRITES[name], "--dry-run", "--json"))
    assert doc["dry_run"] is True and doc["batch_id"] is None and doc["memory_ids"]


@pytest.mark.parametrize("name", list(WRITES))
def test_answering_no_changes_nothing(home: Home, name: str) -> None:
    versions = home.versions()
    code, out, err = home.run(*WRITES[name], answer="n\n")
    assert code == 1 and err.splitlines()[-1] in ("aborted",
                                                  "Error: you typed 'n', not 1: nothing was "
                                                  "purged")
    assert "would change" in out  # the preview came first
    assert home.versions() == versions


def test_no_answer_at_all_aborts(home: Home) -> None:
    versions = home.versions()
    code, _, err = home.run("archive", "a1")  # stdin at its end: a script without --yes
    assert code == 1 and err.strip().endswith("aborted")
    assert home.versions() == versions


def test_answering_yes_applies_and_json_keeps_stdout_clean(home: Home) -> None:
    code, out, err = home.run("archive", "a1", "--json", answer="y\n")
    assert code == 0, err
    assert "archive: would change 1 memory" in err  # the preview and question: stderr
    assert json.loads(out)["memory_ids"] == ["a1"]


# -- undo ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in WRITES if n != "purge"])
def test_undo_restores_the_export_exactly(home: Home, name: str) -> None:
    body = home.export()
    home.ok(*WRITES[name], "--yes")
    assert home.export() != body
    batch = home.last_batch()
    preview = home.ok("undo", batch, "--dry-run")
    assert preview.startswith("undo: would change")
    out = home.ok("undo", batch, "--yes")
    assert out.startswith("undo: changed") and f"undo of batch {batch}" in out
    assert home.export() == body
    code, _, err = home.run("undo", batch, "--yes")
    assert code == 1 and len(err.splitlines()) == 1
    assert f"batch '{batch}' was already undone by batch" in err


def test_undo_refused_after_a_later_change_names_it(home: Home) -> None:
    home.ok("archive", "a1", "--yes")
    first = home.last_batch()
    home.ok("restore", "a1", "--yes")
    versions = home.versions()
    code, _, err = home.run("undo", first, "--yes")
    assert code == 1 and len(err.splitlines()) == 1
    assert "was changed later by 'restore'" in err and "undo that batch first" in err
    assert home.versions() == versions


def test_undo_asks_first(home: Home) -> None:
    home.ok("archive", "a1", "--yes")
    versions = home.versions()
    code, out, _ = home.run("undo", home.last_batch(), answer="n\n")
    assert code == 1 and "undo: would change 1 memory" in out
    assert home.versions() == versions and home.memory("a1").status == "archived"


# -- audit ---------------------------------------------------------------------------------

def test_audit_lists_batches_newest_first(home: Home) -> None:
    home.ok("archive", "a1", "a2", "--reason", "stale", "--yes")
    home.ok("edit", "b1", "--why", "house rule", "--yes")
    out = home.ok("audit", "--limit", "2")
    edit_line, archive_line = out.splitlines()
    assert edit_line.split()[2:4] == ["edit", home.store().actor]
    assert archive_line.split()[2] == "archive"
    assert archive_line.split()[-2:] == ["2", "stale"]
    batches = json.loads(home.ok("audit", "--action", "archive", "--json"))
    assert len(batches) == 1 and batches[0]["memory_ids"] == ["a1", "a2"]
    assert batches[0]["undoable"] is True and batches[0]["reason"] == "stale"
    only = json.loads(home.ok("audit", "--memory", "b1", "--since", "2000-01-01", "--json"))
    assert [b["action"] for b in only] == ["edit", "add"]
    assert json.loads(home.ok("audit", "--until", "2000-01-01", "--json")) == []
    today = datetime.now(UTC).date().isoformat()  # a date alone: through the end of that day
    assert len(json.loads(home.ok("audit", "--until", today, "--since", today, "--json"))) == 4


# -- mistakes: one line, exit 1, nothing changed -------------------------------------------

MISTAKES = [
    (["archive", "ghost"], "no memory with id 'ghost' in tenant 'default'"),
    (["archive", "a1", "acme-1"], "no memory with id 'acme-1' in tenant 'default'"),
    (["delete", "acme-1", "--purge", "--yes"], "no memory with id 'acme-1'"),
    (["edit", "acme-1", "--why", "x", "--yes"], "no memory with id 'acme-1'"),
    (["merge", "a1", "acme-1", "--into", "a1"], "no memory with id 'acme-1'"),
    (["supersede", "a1", "--by", "acme-1"], "no memory with id 'acme-1'"),
    (["archive", "--project", "nowhere"], "no memory matches the filter; nothing to archive"),
    (["restore", "--project", "atlas"], "no memory matches the filter; nothing to restore"),
    (["delete", "--tag", "nowhere", "--yes"], "no memory matches the filter"),
    (["archive"], "give memory ids or filter options"),
    (["delete", "a1", "--project", "herd"], "give memory ids or filter options, not both"),
    (["supersede", "a1"], "give --content or --by, not both or neither"),
    (["supersede", "a1", "--content", "x", "--by", "b1"], "not both or neither"),
    (["merge", "a1", "--into", "a1"], "a merge needs at least one memory besides"),
    (["edit", "a1"], "nothing to edit"),
    (["edit", "a1", "--metadata", "[1]"], "must be a JSON object"),
    (["edit", "a1", "--metadata", "{nope"], "is not JSON"),
    (["edit", "a1", "--why", ""], "--why is empty"),
    (["edit", "a1", "--importance", "urgent", "--yes"], "unknown importance 'urgent'"),
    (["archive", "z1", "--yes"], "nothing to archive: 1 already archived"),
    (["undo", "no-such-batch"], "no batch 'no-such-batch' in tenant 'default'"),
    (["verify-deleted", "never-was"], "memory 'never-was' was never in tenant"),
    (["audit", "--since", "yesterday"], "is not ISO-8601"),
]


@pytest.mark.parametrize(("argv", "message"), MISTAKES, ids=[" ".join(a) for a, _ in MISTAKES])
def test_mistakes_are_one_line_and_change_nothing(home: Home, argv: list[str],
                                                  message: str) -> None:
    versions = home.versions()
    code, _, err = home.run(*argv)
    assert code == 1
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err
    assert home.versions() == versions


# -- untrusted text is escaped -------------------------------------------------------------

def _no_controls(out: str, err: str) -> None:
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    assert "\u202e" not in out + err


#: (argv, whether its report quotes the hostile text)
HOSTILE_WRITES = [
    (["edit", "evil", "--content", f"new {HOSTILE}", "--tag", HOSTILE, "--project", HOSTILE,
      "--reason", HOSTILE], True),
    (["delete", "evil", "--reason", HOSTILE], True),
    (["delete", "evil", "--purge"], True),
    (["archive", "evil"], False),
    (["supersede", "evil", "--content", f"newer {HOSTILE}"], False),
    (["merge", "a1", "evil", "--into", "a1"], True),
    (["edit", "a1", "--why", HOSTILE], True),
]


@pytest.mark.parametrize(("argv", "quotes"), HOSTILE_WRITES,
                         ids=["edit", "delete", "purge", "archive", "supersede", "merge",
                              "edit why"])
def test_hostile_content_is_escaped_in_previews_and_reports(home: Home, argv: list[str],
                                                           quotes: bool) -> None:
    for extra, answer in ((["--dry-run"], ""), ([], "n\n"), (["--yes"], "")):
        code, out, err = home.run(*argv, *extra, answer=answer)
        _no_controls(out, err)
        if quotes:  # shown, escaped, not dropped
            assert "\\x1b[31m" in out and ("<U+202E>" in out or "\\u202e" in out), out
    assert code == 0, err


def test_hostile_reason_and_ids_are_escaped_in_audit_and_verify(home: Home) -> None:
    home.ok("delete", "evil", "--reason", f"why {HOSTILE}", "--yes")
    code, out, err = home.run("audit")
    assert code == 0
    _no_controls(out, err)
    assert "why plain \\x1b[31mred\\x0dOVERWRITE <U+202E>txt.exe" in out
    code, out, err = home.run("verify-deleted", "evil")
    assert code == 0, out + err
    _no_controls(out, err)
    code, _, err = home.run("undo", HOSTILE)
    assert code == 1
    _no_controls("", err)
    doc = json.loads(home.ok("audit", "--json"))
    assert doc[0]["reason"] == f"why {HOSTILE}"  # JSON keeps the value as it is


def test_every_command_has_help_and_store_options(home: Home) -> None:
    from memory_core.cli import cli
    from memory_core.cli.curation import COMMANDS

    for command in COMMANDS:
        assert command.name in cli.commands and command.help
        options: set[Any] = {o for p in command.params for o in getattr(p, "opts", [])}
        assert {"--store", "--tenant"} <= options, command.name
        code, out, _ = home.run(str(command.name), "--help")
        assert code == 0 and f"Usage: memlens {command.name}" in out


def test_memories_pending_embedding_can_be_curated(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from tests.memory_core.cli.home import offline_home

    uri = offline_home(tmp_path, monkeypatch)  # no model: memories are written pending
    code, out, err = run_cli(["--store", uri, "add", "written offline", "--json"], capsys)
    memory_id = json.loads(out)["inserted"][0]
    code, out, err = run_cli(["--store", uri, "archive", memory_id, "--yes"], capsys)
    assert code == 0, err
    batch = out.splitlines()[0].rsplit(" ", 1)[-1]
    code, _, err = run_cli(["--store", uri, "undo", batch, "--yes"], capsys)
    assert code == 0, err
    from memory_core.model.config import Settings

    store = MemoryStore.open(settings=Settings.from_env(store_uri=uri))
    memory = store.get_many([memory_id], with_vectors=True)[memory_id]
    assert memory.status == "active" and memory.vector is None
