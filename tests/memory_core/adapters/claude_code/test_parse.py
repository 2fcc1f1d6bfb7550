"""Slash commands in Claude Code transcripts: a session that opens with one keeps its work."""

from __future__ import annotations

from pathlib import Path

from memory_core.adapters.base import stable_id
from memory_core.adapters.claude_code.parse import command_request
from memory_core.exchange.importer import import_file
from memory_core.store import MemoryStore

ROOT = Path(__file__).parents[1] / "data" / "claude_code" / "slash_command"
SESSION = "7a3c5e10-2b4d-4f6a-8c1e-9d0b2f4a6c01"
ARGS = "websearch to learn how beads stores issues in git, then write beads for the import rewrite"


def thread(uuid: str) -> str:
    return stable_id("claude_code", SESSION, f"thread {uuid}")


def test_a_session_opening_with_a_slash_command_keeps_its_work(store: MemoryStore) -> None:
    report = import_file(store, ROOT)
    assert "assistant line before any user request" not in report.skipped
    command = store.get(thread("7a3c5e10-0000-4000-8000-000000000001"))
    assert command.content == (
        f"User: /create-beads {ARGS}\n\nAssistant: Beads keeps issues in "
        "`.beads/issues.jsonl`, synced through git. I created beads-a1f (read transcripts in "
        "one pass) as the first step of the import rewrite.")
    assert command.metadata["tools"] == {"WebSearch": 1, "Bash": 1}
    assert command.metadata["line"] == 2
    # The command's expansion is its context, not a request of its own.
    assert command.metadata["extra"]["slash_command"] == {"name": "/create-beads",
                                                          "expansion_chars": 252}
    assert report.skipped["slash command expansion (isMeta, kept as the command's context)"][
        "count"] == 1
    later = store.get(thread("7a3c5e10-0000-4000-8000-000000000009"))
    assert later.content == ("User: Add a bead for the tests too.\n\n"
                             "Assistant: Created beads-b2c for the slash command tests.")
    assert report.records["memory"] == 3  # two threads and the session summary
    summary = store.get(stable_id("claude_code", SESSION, "session"))
    assert f"First request: /create-beads {ARGS}" in summary.content


def test_a_command_nobody_answers_is_still_left_out(store: MemoryStore, tmp_path: Path) -> None:
    folder = tmp_path / "-tmp-model"
    folder.mkdir()
    common = '"sessionId":"s3","cwd":"/tmp/model","timestamp":"2025-11-01T10:00:0{}Z"'
    lines = [
        '{"type":"user","uuid":"c1",' + common.format(1) + ',"message":{"role":"user",'
        '"content":"<command-name>/model</command-name><command-args></command-args>"}}',
        '{"type":"user","uuid":"c2",' + common.format(2) + ',"message":{"role":"user",'
        '"content":"<local-command-stdout>Set model to opus</local-command-stdout>"}}',
        '{"type":"user","uuid":"u1",' + common.format(3) + ',"message":{"role":"user",'
        '"content":"Say hi."}}',
        '{"type":"assistant","uuid":"a1",' + common.format(4) + ',"message":{"id":"m1",'
        '"model":"claude-x","role":"assistant","content":"hi"}}',
    ]
    (folder / "s3.jsonl").write_text("\n".join(lines) + "\n")
    report = import_file(store, folder)
    assert report.records["memory"] == 2
    assert store.get(stable_id("claude_code", "s3", "thread u1")).content == (
        "User: Say hi.\n\nAssistant: hi")
    assert report.skipped["command wrapper <command-name> (slash command or shell)"][
        "count"] == 1


def test_command_request_reads_name_and_args() -> None:
    assert command_request("<command-name>/compact</command-name>\n"
                           "<command-args>keep the PR notes</command-args>") == (
        "/compact keep the PR notes")
    assert command_request("<command-name>review</command-name>") == "/review"
    assert command_request("<local-command-stdout>done</local-command-stdout>") is None
