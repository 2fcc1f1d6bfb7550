"""The extraction step of the `claude_code` adapter: one parsed session -> memory drafts.

`Extractor` is the boundary: `extract(session, skip)` returns `Draft`s (a key unique in the
session, a memory type, content, metadata, and the keys of the drafts it is derived from);
the adapter turns keys into stable ids and `derived_from` lists into edges. The default,
`DeterministicExtractor`, works offline and gives the same drafts for the same input:

- one `thread` per answered request: "User: <request>\\n\\nAssistant: <answer>" ("Task: ... /
  Subagent: ..." inside subagent files), the request clipped at `request_chars` and the answer
  at `answer_chars` characters (the full lengths stay in metadata; the transcript file and
  line say where the full texts are);
- one `session_summary` per session, written from the transcript alone (title, first request,
  exchanges, tools with counts, tool errors, files touched, branch, time span), derived from
  each of its threads;
- a main thread that started a subagent (`toolUseResult.agentId`) is derived from that
  subagent's threads.

An LLM extractor would subclass `Extractor`, register in `EXTRACTORS` and be chosen with
`--param extractor=NAME`; none ships with memlens.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar

from memory_core.adapters.claude_code_parse import Exchange, Skip, Transcript
from memory_core.canonical import iso
from memory_core.errors import ExportFormatError

REQUEST_CHARS = 2000
ANSWER_CHARS = 4000
#: Files listed in metadata (the count of all is kept) and in a summary's text.
FILES_KEPT = 50
FILES_SHOWN = 8
SKIP_UNANSWERED = "request without an assistant text answer"
SKIP_EMPTY_SESSION = "session without a user request"


@dataclass(frozen=True)
class Session:
    """A main transcript and its subagents' transcripts, with the project they belong to."""

    session_id: str
    project: str
    project_folder: str
    main: Transcript
    subagents: tuple[Transcript, ...] = ()

    @property
    def transcripts(self) -> tuple[Transcript, ...]:
        """The main transcript, then the subagents'."""
        return (self.main, *self.subagents)

    def span(self) -> tuple[datetime, datetime] | None:
        """The first and last timestamps of its user and assistant lines."""
        times = [t for transcript in self.transcripts for t in transcript.times]
        return (min(times), max(times)) if times else None


@dataclass(frozen=True)
class Draft:
    """A memory the extractor wants written, before it has an id."""

    key: str
    memory_type: str
    content: str
    created_at: str
    where: str
    agent: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: Keys of the drafts (of the same session) this one is built from.
    derived_from: tuple[str, ...] = ()


class Extractor(ABC):
    """Turns a session into drafts; `params` are the `--param` keys it reads."""

    name: ClassVar[str]
    params: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> Extractor:
        """An extractor set up from `--param` values (keys already checked)."""
        return cls()

    @abstractmethod
    def extract(self, session: Session, skip: Skip) -> list[Draft]:
        """The drafts of `session`; what it leaves out goes to `skip(reason, where)`."""


def _positive(params: Mapping[str, str], key: str, default: int) -> int:
    value = params.get(key)
    if value is None:
        return default
    if not value.strip().isdigit() or int(value) < 1:
        raise ExportFormatError(f"--param {key}={value!r}: use a positive number of characters")
    return int(value)


def clip(text: str, limit: int) -> str:
    """`text` cut at `limit` characters (at a word end when one is near), marked when cut.

    >>> clip("one two three", 8)
    'one two … [5 more characters]'
    """
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return f"{cut.rstrip()} … [{len(text) - len(cut)} more characters]"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _compact(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` without the empty ones (None, "", [], {}, False, 0): metadata stays small."""
    return {k: v for k, v in values.items() if v not in (None, "", [], {}, False, 0)}


def _counts(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def span_text(start: datetime, end: datetime) -> str:
    """"2025-11-03 09:14–09:50 UTC (36 min)", with both dates when the span crosses one."""
    if f"{start:%Y-%m-%d %H:%M}" == f"{end:%Y-%m-%d %H:%M}":
        when = f"{start:%Y-%m-%d %H:%M} UTC"
    elif start.date() == end.date():
        when = f"{start:%Y-%m-%d %H:%M}–{end:%H:%M} UTC"
    else:
        when = f"{start:%Y-%m-%d %H:%M} UTC – {end:%Y-%m-%d %H:%M} UTC"
    minutes = int((end - start).total_seconds() // 60)
    if minutes < 1:
        length = "under a minute"
    elif minutes < 120:
        length = f"{minutes} min"
    else:
        length = f"{minutes // 60} h {minutes % 60} min"
    return f"{when} ({length})"


class DeterministicExtractor(Extractor):
    """Threads and a session summary from the transcript alone; see the module doc."""

    name = "deterministic"
    params = frozenset({"request_chars", "answer_chars"})

    def __init__(self, request_chars: int = REQUEST_CHARS,
                 answer_chars: int = ANSWER_CHARS) -> None:
        self.request_chars = request_chars
        self.answer_chars = answer_chars

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> DeterministicExtractor:
        return cls(_positive(params, "request_chars", REQUEST_CHARS),
                   _positive(params, "answer_chars", ANSWER_CHARS))

    def extract(self, session: Session, skip: Skip) -> list[Draft]:
        pairs = [(t, e) for t in session.transcripts for e in t.exchanges]
        if not pairs:
            skip(SKIP_EMPTY_SESSION, session.main.where)
            return []
        threads: list[tuple[Exchange, Draft]] = []
        by_agent: dict[str, list[str]] = {}
        for transcript, exchange in pairs:
            if not exchange.answer:
                skip(SKIP_UNANSWERED, exchange.where)
                continue
            draft = self.thread(session, transcript, exchange)
            threads.append((exchange, draft))
            if transcript is not session.main and transcript.agent_id:
                by_agent.setdefault(transcript.agent_id, []).append(draft.key)
        drafts = []
        for exchange, draft in threads:
            links = tuple(k for agent in exchange.subagents for k in by_agent.get(agent, ()))
            drafts.append(replace(draft, derived_from=links) if links else draft)
        drafts.append(self.summary(session, pairs, drafts))
        return drafts

    def thread(self, session: Session, transcript: Transcript, exchange: Exchange) -> Draft:
        """The `thread` draft of one answered exchange."""
        sub = transcript is not session.main
        asked, answered = ("Task", "Subagent") if sub else ("User", "Assistant")
        request, answer = exchange.request, exchange.answer
        content = (f"{asked}: {clip(request, self.request_chars)}\n\n"
                   f"{answered}: {clip(answer, self.answer_chars)}")
        metadata = _compact({
            "transcript": transcript.where, "line": exchange.line, "uuid": exchange.uuid,
            "parent_uuid": exchange.parent_uuid, "cwd": transcript.cwd,
            "git_branch": transcript.git_branch, "claude_code_version": transcript.version,
            "model": exchange.model, "is_sidechain": sub, "agent_id": transcript.agent_id,
            "answer_message_id": exchange.answer_message, "ended_at": exchange.ended_at,
            "tools": _counts(exchange.tools), "tool_errors": exchange.tool_errors,
            "files": exchange.files[:FILES_KEPT], "subagents": exchange.subagents,
            "images": exchange.images, "interrupted": exchange.interrupted,
            "request_chars": len(request), "answer_chars": len(answer),
            "truncated": len(request) > self.request_chars or len(answer) > self.answer_chars,
            "extra": exchange.extra,
        })
        return Draft(key=f"thread {exchange.uuid}", memory_type="thread", content=content,
                     created_at=exchange.timestamp, where=exchange.where,
                     agent=transcript.agent_id if sub else exchange.model,
                     tags=("subagent",) if sub else (), metadata=metadata)

    def summary(self, session: Session, pairs: list[tuple[Transcript, Exchange]],
                threads: list[Draft]) -> Draft:
        """The `session_summary` draft, derived from every thread of the session."""
        main = session.main
        tools: Counter[str] = Counter()
        files: list[str] = []
        for _, exchange in pairs:
            tools.update(exchange.tools)
            files += [f for f in exchange.files if f not in files]
        errors = sum(exchange.tool_errors for _, exchange in pairs)
        models = Counter(e.model for t, e in pairs if t is main and e.model)
        model = models.most_common(1)[0][0] if models else next(
            (e.model for _, e in pairs if e.model), None)
        span = session.span()
        unanswered = sum(not exchange.answer for _, exchange in pairs)
        sub_threads = sum("subagent" in d.tags for d in threads)
        agents = [t.agent_id for t in session.subagents if t.agent_id]

        head = f"Claude Code session in {session.project}"
        if main.git_branch and main.git_branch != "HEAD":
            head += f" on branch {main.git_branch}"
        if span:
            head += f", {span_text(*span)}"
        lines = [head + (f", {model}." if model else ".")]
        title = main.title
        if title:
            lines.append(f"Title: {title}")
        lines.append(f"First request: {clip(pairs[0][1].request, 300)}")
        done = _plural(len(threads), "exchange")
        if sub_threads:
            done += (f", {sub_threads} of them by "
                     f"{'subagent' if len(agents) == 1 else 'subagents'} {', '.join(agents)}")
        if unanswered:
            done += f"; {_plural(unanswered, 'request')} without a text answer"
        lines.append(done + ".")
        if tools:
            used = ", ".join(f"{name} ×{n}" for name, n in _counts(tools).items())
            lines.append(f"Tools: {used}" + (f"; {_plural(errors, 'tool error')}."
                                             if errors else "."))
        else:
            lines.append("No tools used.")
        if files:
            more = f" (+{len(files) - FILES_SHOWN} more)" if len(files) > FILES_SHOWN else ""
            lines.append(f"Files touched: {', '.join(files[:FILES_SHOWN])}{more}.")
        metadata = _compact({
            "transcript": main.where, "project_folder": session.project_folder,
            "cwd": main.cwd, "git_branch": main.git_branch,
            "claude_code_version": main.version, "title": title,
            "started_at": iso(span[0]) if span else None,
            "ended_at": iso(span[1]) if span else None,
            "duration_seconds": round((span[1] - span[0]).total_seconds()) if span else None,
            "exchanges": len(threads), "unanswered": unanswered, "subagents": agents,
            "tools": _counts(tools), "tool_errors": errors, "files": files[:FILES_KEPT],
            "files_total": len(files), "models": _counts(models),
        })
        return Draft(key="session", memory_type="session_summary", content="\n".join(lines),
                     created_at=str(iso(span[0])) if span else pairs[0][1].timestamp,
                     where=main.where, agent=model, metadata=metadata,
                     derived_from=tuple(d.key for d in threads))


#: Extractors by name, for `--param extractor=NAME`.
EXTRACTORS: dict[str, type[Extractor]] = {DeterministicExtractor.name: DeterministicExtractor}


def extractor_class(name: str) -> type[Extractor]:
    """The extractor registered as `name`; an unknown name lists the known ones."""
    if name not in EXTRACTORS:
        raise ExportFormatError(f"--param extractor={name!r} is not known; use one of: "
                                f"{', '.join(sorted(EXTRACTORS))}")
    return EXTRACTORS[name]
