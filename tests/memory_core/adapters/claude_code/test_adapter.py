"""The `claude_code` adapter on a hand-written ~/.claude/projects tree: two projects, three
sessions, one subagent, and the awkward lines real transcripts have."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_core.adapters.base import stable_id
from memory_core.adapters.claude_code.adapter import ClaudeCodeAdapter
from memory_core.adapters.claude_code.extract import Draft, Extractor, Session, clip
from memory_core.adapters.claude_code.lines import Skip
from memory_core.exchange.importer import import_file
from memory_core.exchange.readers import ReadOptions, detect_reader
from memory_core.model.errors import ExportFormatError
from memory_core.store import MemoryStore
from tests.conftest import run_cli

ROOT = Path(__file__).parents[1] / "data" / "claude_code" / "projects"
HERD = "-home-ana-code-herd"
NOTES = "-home-ana-code-notes-site"
A = "5c1f0a2e-3b7d-4e8a-9f10-2a6b8c4d1e01"
B = "9d2e7b41-0c55-4f3a-8e6d-7b1a2c3d4e02"
C = "e4a1c9b0-77d2-4b6e-a1f3-5c9d0e8f7a03"
A_FILE = ROOT / HERD / f"{A}.jsonl"


def thread(session: str, uuid: str) -> str:
    return stable_id("claude_code", session, f"thread {uuid}")


def summary(session: str) -> str:
    return stable_id("claude_code", session, "session")


def compaction(session: str, uuid: str) -> str:
    return stable_id("claude_code", session, f"compaction {uuid}")


A_FIX = thread(A, "1b6f2c3d-8e4a-4f5b-9c6d-0e1f2a3b4c04")
A_IMAGE = thread(A, "1b6f2c3d-8e4a-4f5b-9c6d-0e1f2a3b4c25")
A_TESTS = thread(A, "1b6f2c3d-8e4a-4f5b-9c6d-0e1f2a3b4c27")
A_SUB = thread(A, "e9d4b2a7-6c1f-4e3d-a5b8-3c2d1e0f9a01")
B_TESTS = thread(B, "7e2d9a10-5b3c-4d1e-8f2a-6c7b8d9e0f01")
B_CONTINUE = thread(B, "7e2d9a10-5b3c-4d1e-8f2a-6c7b8d9e0f11")
C_ALT = thread(C, "c3a8e5f1-2d4b-4a6c-b7e9-1f0a2b3c4d01")
A_COMPACTION = "1b6f2c3d-8e4a-4f5b-9c6d-0e1f2a3b4c24"

SKIPPED = {
    "tool result line (tool output, not a request)": 13,
    "file-history-snapshot line (not conversation)": 2,
    "system line (not conversation)": 2,
    "queue-operation line (not conversation)": 2,
    "request without an assistant text answer": 2,
    "meta line (isMeta: caveats and injected context)": 1,
    "command wrapper <command-name> (slash command or shell)": 1,
    "command wrapper <local-command-stdout> (slash command or shell)": 1,
    "progress line (not conversation)": 1,
    "summary line (kept as the session title)": 1,
    "interruption marker ([Request interrupted by user])": 1,
    "synthetic assistant message (API error, no model answer)": 1,
    "truncated last line (transcript still being written?)": 1,
}

A_SUMMARY = (
    "Claude Code session in herd on branch fix/flaky-import, 2025-11-03 09:14–09:50 UTC "
    "(36 min), claude-sonnet-4-5-20250929.\n"
    "Title: Fix flaky importer test on CI\n"
    "First request: The importer test `test_second_import_adds_nothing` fails on CI about one "
    "time in five. Can you find out why and fix it?\n"
    "4 exchanges, 1 of them by subagent a3f9c21.\n"
    "1 compaction, kept as a summary of its own.\n"
    "Tools: Bash ×4, Read ×2, Edit ×1, Grep ×1, Task ×1; 1 tool error.\n"
    "Files touched: tests/test_importer.py, memory_core/staging.py."
)


def copy_tree(tmp_path: Path) -> Path:
    target = tmp_path / "projects"
    shutil.copytree(ROOT, target)
    return target


def edges_of(store: MemoryStore) -> set[tuple[str, str, str]]:
    return {(e.relation, e.source_id, e.target_id) for e in store.edges.list()}


def test_fixture_imports_threads_summaries_and_edges(store: MemoryStore) -> None:
    report = import_file(store, ROOT)
    assert report.format == "claude_code" and report.mode == "merge"
    assert report.records == {"memory": 10, "edge": 10, "audit": 0}
    # B's "run the tests" exchange says exactly what A's said: kept once, A's id.
    assert report.duplicates == {B_TESTS: A_TESTS}
    assert {reason: s["count"] for reason, s in report.skipped.items()} == SKIPPED
    assert report.read == 10 + 10 + 1 + sum(SKIPPED.values())
    assert report.notes == ("the deterministic extractor produced 7 thread, 3 session_summary, "
                            "1 compaction summary",)
    assert store.count() == 10

    fix = store.get(A_FIX)
    assert fix.memory_type == "thread" and fix.status == "active"
    assert fix.content.startswith("User: The importer test `test_second_import_adds_nothing` "
                                  "fails on CI")
    assert "\n\nAssistant: Found it. `memory_core/staging.py` built the staged ids" in fix.content
    assert "I'll start with the test" not in fix.content  # an earlier text, not the answer
    assert (fix.project, fix.session_id, fix.agent, fix.source) == (
        "herd", A, "claude-sonnet-4-5-20250929", "transcript")
    assert fix.created_at.isoformat() == "2025-11-03T09:14:31.866000+00:00"
    assert fix.metadata["tools"] == {"Bash": 3, "Edit": 1, "Read": 1, "Task": 1}
    assert fix.metadata["tool_errors"] == 1 and fix.metadata["subagents"] == ["a3f9c21"]
    assert fix.metadata["files"] == ["tests/test_importer.py", "memory_core/staging.py"]
    assert fix.metadata["answer_message_id"] == "msg_01Lq2sA5dF7gH9jK1lZ3xC6v"
    assert fix.metadata["transcript"] == f"{HERD}/{A}.jsonl" and fix.metadata["line"] == 6
    assert fix.metadata["extra"] == {"thinkingMetadata": {"level": "high", "disabled": False,
                                                          "triggers": []}, "todos": []}

    assert store.get(A_IMAGE).metadata["images"] == 1
    sub = store.get(A_SUB)
    assert sub.agent == "a3f9c21" and sub.session_id == A and sub.tags == ("subagent",)
    assert sub.content.startswith("Task: In /home/ana/code/herd, find where memory_core")
    assert "\n\nSubagent: memory_core/staging.py:71 builds" in sub.content
    assert sub.metadata["is_sidechain"] is True
    assert sub.metadata["model"] == "claude-haiku-4-5-20251001"

    assert store.get(B_CONTINUE).content.startswith("User: continue\n\nAssistant: Since 0.1.0")
    notes = store.get(C_ALT)
    assert notes.project == "notes-site" and notes.agent == "claude-opus-4-1-20250805"

    a_summary = store.get(summary(A))
    assert a_summary.memory_type == "session_summary" and a_summary.content == A_SUMMARY
    assert a_summary.created_at.isoformat() == "2025-11-03T09:14:02.001000+00:00"
    assert a_summary.metadata["duration_seconds"] == 2208
    assert store.get(summary(B)).content == (
        "Claude Code session in herd on branch main, 2025-11-05 16:02–16:07 UTC (5 min), "
        "claude-sonnet-4-5-20250929.\nFirst request: run the tests\n"
        "2 exchanges; 2 requests without a text answer.\n"
        "Tools: Bash ×2, Edit ×1; 1 tool error.\nFiles touched: pyproject.toml.")
    assert store.get(summary(C)).content.startswith(
        "Claude Code session in notes-site on branch main, 2025-11-07 10:21 UTC "
        "(under a minute), claude-opus-4-1-20250805.")

    assert edges_of(store) == {
        ("derived_from", A_FIX, A_SUB),
        *(("derived_from", summary(A), t) for t in (A_FIX, A_IMAGE, A_TESTS, A_SUB)),
        ("derived_from", summary(B), A_TESTS), ("derived_from", summary(B), B_CONTINUE),
        ("derived_from", summary(C), C_ALT),
        # A's compaction summarises the fix and belongs with the session's summary.
        ("relates_to", compaction(A, A_COMPACTION), A_FIX),
        ("relates_to", summary(A), compaction(A, A_COMPACTION)),
    }


def test_a_second_import_adds_nothing(store: MemoryStore) -> None:
    import_file(store, ROOT)
    versions = store.table_versions()
    again = import_file(store, ROOT)
    assert again.inserted == () and again.updated == () and len(again.unchanged) == 10
    assert again.edges_added == 0 and again.edges_skipped == 10
    assert store.table_versions() == versions and store.count() == 10


def test_dry_run_reports_and_writes_nothing(store: MemoryStore) -> None:
    versions = store.table_versions()
    report = import_file(store, ROOT, dry_run=True)
    assert report.dry_run and len(report.inserted) == 10 and report.edges_added == 10
    assert store.table_versions() == versions and store.count() == 0


@pytest.mark.parametrize("options, memories, sessions", [
    (ReadOptions(limit=1), 6, {A}),
    (ReadOptions(limit=2), 8, {A, B}),
    (ReadOptions(project="notes-site"), 2, {C}),
    (ReadOptions(project=HERD), 8, {A, B}),
    (ReadOptions(project="herd", limit=1), 6, {A}),
])
def test_limit_counts_sessions_and_project_picks_folder_or_name(
        store: MemoryStore, options: ReadOptions, memories: int, sessions: set[str]) -> None:
    report = import_file(store, ROOT, options=options)
    assert report.records["memory"] == memories
    assert {m.session_id for m in store.list(limit=100)} == sessions


def test_unknown_project_lists_the_projects(store: MemoryStore) -> None:
    with pytest.raises(ExportFormatError, match=rf"no Claude Code project 'nope'.*"
                                                rf"{HERD} \(herd\), {NOTES} \(notes-site\)"):
        import_file(store, ROOT, options=ReadOptions(project="nope"))


@pytest.mark.parametrize("path, memories", [(ROOT / HERD, 8), (A_FILE, 6), (ROOT / NOTES, 2)])
def test_path_is_a_project_folder_or_a_session_file(store: MemoryStore, path: Path,
                                                    memories: int) -> None:
    assert detect_reader(path).name == "claude_code"
    report = import_file(store, path)
    assert report.records["memory"] == memories
    if path == A_FILE:  # the session's subagent file comes along
        assert store.get(A_SUB).agent == "a3f9c21"


def test_sniff_refuses_other_files(tmp_path: Path) -> None:
    adapter = ClaudeCodeAdapter()
    other = tmp_path / "chat.jsonl"
    other.write_text('{"type": "user", "text": "hi"}\n')
    assert not adapter.sniff(other, other.read_text())
    export = tmp_path / "export.ndjson"
    export.write_text('{"memlens_export": 1, "schema_version": 1}\n')
    assert not adapter.sniff(export, export.read_text())
    assert not adapter.sniff(tmp_path, "")
    assert not adapter.sniff(tmp_path / "missing", "")


def test_params_clip_content_and_leave_subagents_out(store: MemoryStore) -> None:
    params = {"subagents": "no", "request_chars": "60", "answer_chars": "60"}
    report = import_file(store, A_FILE, options=ReadOptions(params=params))
    assert report.records == {"memory": 5, "edge": 5, "audit": 0}
    fix = store.get(A_FIX)
    assert fix.content == (
        "User: The importer test `test_second_import_adds_nothing` fails … [63 more characters]"
        "\n\nAssistant: Found it. `memory_core/staging.py` built the staged ids … "
        "[270 more characters]")
    assert fix.metadata["truncated"] is True and fix.metadata["answer_chars"] == 325
    assert "1 of them by subagent" not in store.get(summary(A)).content


def test_clip_cuts_at_a_word_end() -> None:
    assert clip("short", 10) == "short"
    assert clip("one two three", 8) == "one two … [6 more characters]"
    assert clip("abcdefghij", 4) == "abcd … [6 more characters]"


@pytest.mark.parametrize("params, message", [
    ({"colour": "red"}, r"has no --param colour; it takes extractor=\.\.\., "
                        r"subagents=\.\.\., answer_chars=\.\.\., compactions=\.\.\., "
                        r"part_tools=\.\.\., request_chars=\.\.\."),
    ({"compactions": "all"}, r"--param compactions='all': use one of sections, summary, skip"),
    ({"part_tools": "x"}, r"--param part_tools='x': use a positive number of tool calls"),
    ({"extractor": "haiku"}, r"--param extractor='haiku' is not known; use one of: "
                             r"deterministic"),
    ({"subagents": "maybe"}, r"--param subagents='maybe': use yes or no"),
    ({"answer_chars": "0"}, r"--param answer_chars='0': use a positive number"),
])
def test_bad_params_are_errors(store: MemoryStore, params: dict[str, str],
                               message: str) -> None:
    with pytest.raises(ExportFormatError, match=message):
        import_file(store, ROOT, options=ReadOptions(params=params))


def _replace_line(path: Path, number: int, change) -> None:  # type: ignore[no-untyped-def]
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[number - 1] = change(lines[number - 1])
    path.write_text("\n".join(lines), encoding="utf-8")


def _edit(field: str, value: object):  # type: ignore[no-untyped-def]
    def change(line: str) -> str:
        doc = json.loads(line)
        target = doc["message"] if field == "content" else doc
        if value is None:
            target.pop(field)
        else:
            target[field] = value
        return json.dumps(doc)
    return change


BROKEN = [
    ("cut mid-file", 9, lambda line: line[:120], r"line 9 is not JSON .*truncated"),
    ("not an object", 7, lambda line: "[1, 2]", r"line 7 is not a JSON object"),
    ("content is a number", 6, _edit("content", 42),
     r"line 6: message.content of the user line must be text or a list of blocks, got int 42"),
    ("no sessionId", 6, _edit("sessionId", None), r"line 6: the user line's 'sessionId'"),
    ("no timestamp", 8, _edit("timestamp", None), r"line 8: the assistant line's 'timestamp'"),
    ("bad timestamp", 8, _edit("timestamp", "yesterday"), r"'yesterday' is not an ISO-8601"),
    ("no uuid", 27, _edit("uuid", None), r"line 27: the user line's 'uuid'"),
    ("no type", 15, _edit("type", None), r"line 15 has no 'type'"),
    ("block without type", 27, lambda line: line.replace('"type":"image",', ""),
     r"line 27: block 1 of message.content is not an object with a 'type'"),
]


@pytest.mark.parametrize("name, number, change, message", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_transcripts_name_file_and_line_and_write_nothing(
        store: MemoryStore, tmp_path: Path, name: str, number: int, change,  # type: ignore[no-untyped-def]
        message: str) -> None:
    import_file(store, ROOT / NOTES)
    versions = store.table_versions()
    root = copy_tree(tmp_path)
    path = root / HERD / f"{A}.jsonl"
    _replace_line(path, number, change)
    with pytest.raises(ExportFormatError, match=message) as error:
        import_file(store, root)
    assert str(path) in str(error.value)
    assert store.table_versions() == versions and store.count() == 2


def test_binary_file_is_an_error(store: MemoryStore, tmp_path: Path) -> None:
    root = copy_tree(tmp_path)
    (root / NOTES / "0b1d2c3e-aaaa-4bbb-8ccc-000000000000.jsonl").write_bytes(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    versions = store.table_versions()
    with pytest.raises(ExportFormatError, match=r"0b1d2c3e.*\.jsonl is a binary file"):
        import_file(store, root)
    assert store.table_versions() == versions


def test_only_a_last_line_without_newline_counts_as_live(store: MemoryStore,
                                                         tmp_path: Path) -> None:
    root = copy_tree(tmp_path)
    path = root / HERD / f"{B}.jsonl"
    path.write_bytes(path.read_bytes() + b"\n")  # the cut line is now a finished line
    with pytest.raises(ExportFormatError, match=r"line 17 is not JSON"):
        import_file(store, root)


def test_legacy_layout_and_compaction_files(store: MemoryStore, tmp_path: Path) -> None:
    root = copy_tree(tmp_path)
    nested = root / HERD / A / "subagents"
    (nested / "agent-a3f9c21.jsonl").rename(root / HERD / "agent-a3f9c21.jsonl")
    (nested / "agent-acompact-7d1e2f.jsonl").write_text((ROOT / HERD / A / "subagents" /
                                                         "agent-a3f9c21.jsonl").read_text())
    (root / HERD / "agent-b0b0b0b.jsonl").write_text(
        '{"type":"user","sessionId":"gone","uuid":"u1","timestamp":"2025-11-01T00:00:00Z",'
        '"message":{"role":"user","content":"hello"}}\n')
    report = import_file(store, root)
    assert report.records == {"memory": 10, "edge": 10, "audit": 0}
    assert store.get(A_SUB).metadata["transcript"] == f"{HERD}/agent-a3f9c21.jsonl"
    assert report.skipped["compaction agent file (agent-acompact-*: Claude Code's own)"] == {
        "count": 1, "examples": [f"{HERD}/{A}/subagents/agent-acompact-7d1e2f.jsonl"]}
    assert report.skipped["subagent file whose session file is missing"]["count"] == 1


def test_odd_lines_are_skipped_with_reasons(store: MemoryStore, tmp_path: Path) -> None:
    folder = tmp_path / "-tmp-odd"
    folder.mkdir()
    common = '"sessionId":"s1","cwd":"/tmp/odd","timestamp":"2025-11-01T10:00:0{}Z"'
    lines = [
        '{"type":"assistant","uuid":"x0",' + common.format(0) +
        ',"message":{"id":"m0","role":"assistant","content":"stray"}}',
        '{"type":"user","uuid":"u1",' + common.format(1) +
        ',"message":{"role":"user","content":"<system-reminder>ctx</system-reminder>hi"}}',
        '{"type":"user","uuid":"u1",' + common.format(2) +
        ',"message":{"role":"user","content":"hi again"}}',
        '{"type":"assistant","uuid":"a1",' + common.format(3) +
        ',"message":{"id":"m1","model":"claude-x","role":"assistant","content":"hello"}}',
        '{"type":"custom-title","customTitle":"Greetings","sessionId":"s1"}',
    ]
    (folder / "s1.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "empty.jsonl").write_text("")
    report = import_file(store, folder)
    assert report.records == {"memory": 2, "edge": 1, "audit": 0}
    assert store.get(thread("s1", "u1")).content == "User: hi\n\nAssistant: hello"
    assert store.get(summary("s1")).content.splitlines()[1] == "Title: Greetings"
    assert store.get(summary("s1")).project == "odd"
    assert {r: s["count"] for r, s in report.skipped.items()} == {
        "assistant line before any user request": 1, "repeated line (uuid already read)": 1,
        "custom-title line (not conversation)": 1, "session without a user request": 1}


def test_assistant_lines_after_a_closed_request_continue_it(store: MemoryStore,
                                                          tmp_path: Path) -> None:
    """A notification line closes the request; what the assistant says after it continues
    that request instead of being dropped for want of one."""
    folder = tmp_path / "-tmp-bg"
    folder.mkdir()
    common = '"sessionId":"s2","cwd":"/tmp/bg","timestamp":"2025-11-01T10:00:0{}Z"'
    lines = [
        '{"type":"user","uuid":"u1",' + common.format(1) + ',"message":{"role":"user",'
        '"content":"Run the slow migration in the background."}}',
        '{"type":"assistant","uuid":"a1",' + common.format(2) + ',"message":{"id":"m1",'
        '"model":"claude-x","role":"assistant","content":"Started it in the background."}}',
        '{"type":"user","uuid":"n1",' + common.format(3) + ',"message":{"role":"user",'
        '"content":"<task-notification>migration done</task-notification>"}}',
        '{"type":"assistant","uuid":"a2",' + common.format(4) + ',"message":{"id":"m2",'
        '"model":"claude-x","role":"assistant","content":"It finished: 120 rows moved."}}',
    ]
    (folder / "s2.jsonl").write_text("\n".join(lines) + "\n")
    report = import_file(store, folder)
    assert report.records == {"memory": 3, "edge": 2, "audit": 0}
    later = store.get(thread("s2", "a2"))
    assert later.content == ("Continuing request: Run the slow migration in the background."
                             "\n\nAssistant: It finished: 120 rows moved.")
    assert later.metadata["continuation"] is True and later.metadata["request_uuid"] == "u1"
    assert "assistant line before any user request" not in report.skipped


class OneLesson(Extractor):
    """A stand-in for an LLM extractor: one lesson per session, derived from its threads."""

    name = "one-lesson"

    def extract(self, session: Session, skip: Skip) -> list[Draft]:
        keys = [f"thread {e.uuid}" for t in session.transcripts for e in t.exchanges
                if e.answer]
        threads = [Draft(key=k, memory_type="thread", content=f"{session.session_id} {k}",
                         created_at="2025-11-01T00:00:00Z", where=session.main.where)
                   for k in keys]
        return [*threads, Draft(key="lesson", memory_type="lesson",
                                content=f"Lesson of {session.session_id}",
                                created_at="2025-11-01T00:00:00Z", where=session.main.where,
                                derived_from=tuple(keys))]


def test_an_extractor_plugs_in_behind_the_same_interface() -> None:
    source = ClaudeCodeAdapter(extractor=OneLesson()).open(ROOT / NOTES)
    records = list(source.records())
    assert [r.kind for r in records] == ["memory", "memory", "edge"]
    lesson, edge = records[1].doc, records[2].doc
    assert lesson["memory_type"] == "lesson" and lesson["id"] == stable_id(
        "claude_code", C, "lesson")
    assert (edge["relation"], edge["source_id"], edge["target_id"]) == (
        "derived_from", lesson["id"], C_ALT)
    assert edge["metadata"] == {"extractor": "one-lesson"}


@pytest.mark.model
def test_cli_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    code, out, err = run_cli(["--store", store, "import", str(ROOT), "--dry-run"], capsys)
    assert code == 0, err
    assert "format: claude_code (--format auto chose it); mode merge; dry run" in out
    assert "memories: 10 would be new" in out and "edges: 10 would be created" in out
    code, out, err = run_cli(["--store", store, "import", str(ROOT), "--limit", "1",
                              "--project", "herd"], capsys)
    assert code == 0, err
    assert "read 29 records from" in out
    assert "memories: 6 imported, 0 updated, 0 unchanged" in out
    assert "edges: 7 created, 0 already there" in out
    assert "duplicates by content_hash: 0" in out
    assert "  9 tool result line (tool output, not a request) (e.g. " in out
