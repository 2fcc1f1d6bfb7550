"""The `claude_code` import format: Claude Code transcripts (`~/.claude/projects`).

PATH is the projects root (a folder of project folders), one project folder, or one session
file `<project>/<session>.jsonl`. A project folder is named after the working directory with
`/` turned into `-` (`-home-ana-code-herd`); a session's subagents live in
`<project>/<session>/subagents/agent-<agentId>.jsonl` (older Claude Code wrote
`<project>/agent-<agentId>.jsonl`, matched to its session by `sessionId`; both are read).
`agent-acompact-*` files are Claude Code's own compaction runs and are skipped.

Each session becomes `thread` memories (one per part of each answered request), one
`session_summary` written from the transcript, and per compaction summary a
`session_summary` with the lessons, decisions and pending tasks its sections hold (see
`extract`). Edges: `derived_from` from the session summary to each thread, from
a thread that started a subagent to the subagent's threads, from a compaction's lessons,
decisions and pending tasks to its summary and from a compaction summary to the one before
it; `relates_to` from a compaction summary to the threads it summarises or continues and
from the session summary to its compaction summaries. Lines are read by
`parse`, which says what is skipped and what is an error; what the extractor
produced is counted in a note of the import report.

Mapping: `sessionId` -> session_id; the model that answered (or the subagent's `agentId`) ->
agent; the project -> the last component of the session's first `cwd`, else the folder name;
the request line's `timestamp` -> created_at (a later part's: its first line's; a summary's:
the session's first line; a compaction's: its line's); source `transcript`; ids
`stable_id("claude_code", sessionId, key)` with the extractor's keys (`thread <uuid>`,
`thread <uuid> part <n>`, `compaction <uuid>`, `lesson <uuid> <n>`, `session`, ...), so a
second import finds the same ids. `--project NAME` keeps the sessions whose folder name or
project name is NAME; `--limit N` reads at most N sessions (in folder, then file-name
order). `--param subagents=no` leaves subagent files out; `--param extractor=NAME` picks
the extractor (`deterministic`, the default); `request_chars` / `answer_chars` set the
clipping of thread content (2000 / 4000), `part_tools` the tool calls after which a long
phase is cut (25), `compactions=sections|summary|skip` what compaction summaries give.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memory_core.adapters.base import Adapter, edge_record, memory_record, stable_id
from memory_core.adapters.claude_code.extract import EXTRACTORS, Extractor, extractor_class
from memory_core.adapters.claude_code.lines import Skip, looks_like_transcript_line, peek
from memory_core.adapters.claude_code.model import Draft, Session
from memory_core.adapters.claude_code.parse import read_transcript
from memory_core.exchange.readers.base import (
    NO_OPTIONS,
    TEXT_ENCODING,
    ExportSource,
    ReadOptions,
    SourceInfo,
    SourceRecord,
)
from memory_core.model.errors import ExportFormatError

NAME = "claude_code"
#: `--param` keys of the format itself (the extractor adds its own).
PARAMS = ("extractor", "subagents")
SKIP_COMPACTION_FILE = "compaction agent file (agent-acompact-*: Claude Code's own)"
SKIP_ORPHAN_FILE = "subagent file whose session file is missing"
YES, NO = ("yes", "true", "1", "on"), ("no", "false", "0", "off")


@dataclass(frozen=True)
class SessionFiles:
    """The files of one session: its transcript and its subagents' transcripts."""

    folder: Path
    main: Path
    subagents: tuple[Path, ...] = ()


def _jsonl(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file())


def display(path: Path, folder: Path) -> str:
    """`path` as "<project folder>/<file>", the same whatever PATH the import was given."""
    return f"{folder.name}/{path.relative_to(folder).as_posix()}"


def project_name(cwd: str | None, folder: Path) -> str:
    """The last component of `cwd` (POSIX or Windows), else the folder's name."""
    parts = [p for p in re.split(r"[/\\]", cwd or "") if p]
    return parts[-1] if parts else folder.name


def _is_compaction(path: Path) -> bool:
    return path.name.startswith("agent-acompact")


def project_sessions(folder: Path, skipped: list[tuple[str, str]]) -> list[SessionFiles]:
    """The sessions of one project folder, by file name; files left out go to `skipped`."""
    files = _jsonl(folder)
    mains = [p for p in files if not p.name.startswith("agent-")]
    beside: dict[str, list[Path]] = {p.stem: [] for p in mains}
    for path in files:
        if not path.name.startswith("agent-"):
            continue
        parent = None if _is_compaction(path) else peek(path, "sessionId")
        if _is_compaction(path):
            skipped.append((SKIP_COMPACTION_FILE, display(path, folder)))
        elif parent in beside:
            beside[str(parent)].append(path)
        else:
            skipped.append((SKIP_ORPHAN_FILE, display(path, folder)))
    sessions = []
    for main in mains:
        nested = folder / main.stem / "subagents"
        subs = sorted(nested.glob("agent-*.jsonl")) if nested.is_dir() else []
        for path in subs:
            if _is_compaction(path):
                skipped.append((SKIP_COMPACTION_FILE, display(path, folder)))
        subs = [p for p in subs if not _is_compaction(p)] + beside[main.stem]
        sessions.append(SessionFiles(folder, main, tuple(subs)))
    return sessions


def discover(path: Path) -> tuple[list[SessionFiles], dict[Path, list[tuple[str, str]]]]:
    """The sessions under PATH (a projects root, a project folder or a session file) and,
    by project folder, the files left out with their reasons."""
    if path.is_file():
        if path.suffix != ".jsonl":
            raise ExportFormatError(f"{path} is not a Claude Code transcript (.jsonl); give a "
                                    f"session file, a project folder or ~/.claude/projects")
        skipped: list[tuple[str, str]] = []
        found = [s for s in project_sessions(path.parent, skipped) if s.main == path]
        own = f"{path.parent.name}/{path.stem}/"
        return found or [SessionFiles(path.parent, path)], {
            path.parent: [(reason, where) for reason, where in skipped
                          if where.startswith(own)]}
    if not path.is_dir():
        raise ExportFormatError(f"there is no file or folder at {path}")
    folders = [path] if _jsonl(path) else [
        d for d in sorted(path.iterdir()) if d.is_dir() and _jsonl(d)]
    if not folders:
        raise ExportFormatError(f"no Claude Code transcripts in {path}: expected "
                                f"<project>/<session>.jsonl files, as in ~/.claude/projects")
    sessions: list[SessionFiles] = []
    left_out: dict[Path, list[tuple[str, str]]] = {}
    for folder in folders:
        sessions += project_sessions(folder, left_out.setdefault(folder, []))
    return sessions, left_out


def select_project(sessions: list[SessionFiles], project: str, path: Path
                   ) -> list[SessionFiles]:
    """The sessions whose folder name or project name is `project`."""
    chosen = [s for s in sessions if s.folder.name == project
              or project_name(peek(s.main, "cwd"), s.folder) == project]
    if not chosen:
        known: dict[str, str] = {}
        for s in sessions:
            known.setdefault(s.folder.name, project_name(peek(s.main, "cwd"), s.folder))
        listed = ", ".join(f"{folder} ({name})" for folder, name in known.items())
        raise ExportFormatError(f"no Claude Code project {project!r} in {path}; "
                                f"projects (folder and name): {listed}")
    return chosen


def _flag(value: str | None, key: str, default: bool) -> bool:
    if value is None:
        return default
    if value.strip().lower() not in YES + NO:
        raise ExportFormatError(f"--param {key}={value!r}: use yes or no")
    return value.strip().lower() in YES


def _first_line(path: Path) -> str:
    with path.open("rb") as handle:
        return handle.readline(1 << 20).decode(TEXT_ENCODING, errors="replace")


class ClaudeCodeAdapter(Adapter):
    """Claude Code transcripts -> threads and session summaries; see the module doc."""

    name = NAME
    sniff_order = 110
    summary = ("Claude Code transcripts (~/.claude/projects/<project>/<session>.jsonl): "
               "threads per answered request, a summary per session and per compaction, "
               "with the compaction's lessons, decisions and pending tasks")
    options = frozenset({"limit", "project"})
    params = (*PARAMS, *sorted({key for kind in EXTRACTORS.values() for key in kind.params}))

    def __init__(self, extractor: Extractor | None = None) -> None:
        #: Used instead of `--param extractor=NAME` when given (e.g. an LLM extractor).
        self.extractor = extractor

    def sniff(self, path: Path, first_line: str) -> bool:
        try:
            if path.is_file():
                return path.suffix == ".jsonl" and looks_like_transcript_line(first_line)
            if not path.is_dir():
                return False
            candidates = _jsonl(path)[:3]
            if not candidates:
                for sub in sorted(path.iterdir())[:50]:
                    if sub.is_dir():
                        candidates += _jsonl(sub)[:1]
                    if len(candidates) >= 3:
                        break
            return any(looks_like_transcript_line(_first_line(p)) for p in candidates)
        except OSError:
            return False

    def _extractor(self, options: ReadOptions) -> Extractor:
        kind = extractor_class(options.param("extractor", "deterministic") or "")
        known = set(PARAMS) | set(kind.params)
        unknown = sorted(set(options.params) - known)
        if unknown:
            raise ExportFormatError(f"the {NAME} format has no --param {', '.join(unknown)}; "
                                    f"it takes {', '.join(sorted(known))}")
        if self.extractor is not None:
            return self.extractor
        return kind.from_params({k: v for k, v in options.params.items() if k in kind.params})

    def open(self, path: Path, options: ReadOptions = NO_OPTIONS) -> ExportSource:
        self.check_options(options)
        extractor = self._extractor(options)
        subagents = _flag(options.param("subagents"), "subagents", True)
        sessions, left_out = discover(path)
        if options.project is not None:
            sessions = select_project(sessions, options.project, path)
        if options.limit is not None:
            sessions = sessions[: options.limit]
        info = SourceInfo(format=NAME, path=str(path), schema_version=1,
                          record_types=("thread", "session_summary", "lesson", "decision"))
        source = ExportSource(info, lambda: self._records(sessions, left_out, source,
                                                          extractor, subagents))
        return source

    def _records(self, sessions: list[SessionFiles],
                 left_out: dict[Path, list[tuple[str, str]]], source: ExportSource,
                 extractor: Extractor, subagents: bool) -> Iterator[SourceRecord]:
        skip = source.skips.skip
        for folder in dict.fromkeys(s.folder for s in sessions):
            for reason, where in left_out.get(folder, []):
                skip(reason, where)
        count = 0
        produced: Counter[str] = Counter()
        for files in sessions:
            session = read_session(files, skip, subagents=subagents)
            drafts = extractor.extract(session, skip)
            produced.update(_kind(draft) for draft in drafts)
            for record in session_records(session, drafts, extractor.name):
                count += 1
                yield SourceRecord(count, record.kind, record.doc, record.where)
        source.notes.append(produced_note(extractor.name, produced))


def _kind(draft: Draft) -> str:
    if draft.memory_type == "session_summary" and "compaction" in draft.tags:
        return "compaction summary"
    if draft.memory_type == "thread" and "pending" in draft.tags:
        return "pending task"
    return draft.memory_type


def produced_note(extractor: str, produced: Counter[str]) -> str:
    """"the deterministic extractor produced 3 thread, 1 session_summary, ...", by kind
    (compaction summaries and pending-task threads counted apart), most first."""
    if not produced:
        return f"the {extractor} extractor produced no memories"
    kinds = sorted(produced.items(), key=lambda item: (-item[1], item[0]))
    return (f"the {extractor} extractor produced "
            + ", ".join(f"{n} {kind}" for kind, n in kinds))


def read_session(files: SessionFiles, skip: Skip, *, subagents: bool = True) -> Session:
    """Parse a session's transcripts into a `Session`."""
    main = read_transcript(files.main, display(files.main, files.folder), skip)
    subs = []
    for path in files.subagents if subagents else ():
        sub = read_transcript(path, display(path, files.folder), skip)
        sub.is_sidechain = True
        sub.agent_id = sub.agent_id or path.stem.removeprefix("agent-")
        subs.append(sub)
    session_id = main.session_id or next(
        (s.session_id for s in subs if s.session_id), files.main.stem)
    cwd = main.cwd or next((s.cwd for s in subs if s.cwd), None)
    return Session(session_id, project_name(cwd, files.folder), files.folder.name, main,
                   tuple(subs))


def session_records(session: Session, drafts: list[Draft], extractor: str
                    ) -> Iterator[SourceRecord]:
    """The memories of `drafts`, then their `derived_from` and `relates_to` edges."""
    ids: dict[str, str] = {}
    for draft in drafts:
        if draft.key in ids:
            raise ExportFormatError(f"{draft.where}: the {extractor} extractor wrote two "
                                    f"memories keyed {draft.key!r}")
        ids[draft.key] = stable_id(NAME, session.session_id, draft.key)
    for draft in drafts:
        yield memory_record(
            draft.where, id=ids[draft.key], content=draft.content,
            memory_type=draft.memory_type, created_at=draft.created_at, source="transcript",
            metadata=draft.metadata, tags=draft.tags, project=session.project,
            session_id=session.session_id, agent=draft.agent)
    for draft in drafts:
        links = [("derived_from", t) for t in draft.derived_from] + [
            ("relates_to", t) for t in draft.relates_to]
        for relation, target in links:
            if target not in ids:
                raise ExportFormatError(f"{draft.where}: the {extractor} extractor linked "
                                        f"{draft.key!r} to {target!r}, which it did not write")
            yield edge_record(
                draft.where, id=stable_id(NAME, session.session_id, relation, draft.key,
                                          target),
                source_id=ids[draft.key], target_id=ids[target], relation=relation,
                created_at=draft.created_at, metadata={"extractor": extractor})
