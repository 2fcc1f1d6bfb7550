"""The extraction step of the `claude_code` adapter: one parsed session -> memory drafts.

`Extractor` is the boundary: `extract(session, skip)` returns `Draft`s (a key unique in the
session, a memory type, content, metadata, and the keys of the drafts it is derived from or
relates to); the adapter turns keys into stable ids and those lists into edges. The default,
`DeterministicExtractor`, works offline and gives the same drafts for the same input:

- `thread` memories: each answered request, cut into parts at its natural boundaries
  (`parts`), one thread per part with the part's concluding text as its answer
  (`threads`); work after a compaction continues the open request, or a
  continuation thread names it. A main thread whose part started a subagent is derived from
  that subagent's threads.
- per compaction summary (`--param compactions=sections`, the default): a
  `session_summary`, and the `lesson`, `decision` and pending-task `thread` memories its
  sections hold, derived from it (`knowledge`); `compactions=summary` keeps the
  summaries alone, `compactions=skip` none of them.
- one `session_summary` per session written from the transcript alone
  (`summary`), derived from its threads.

An LLM extractor would subclass `Extractor`, register in `EXTRACTORS` and be chosen with
`--param extractor=NAME`; none ships with memlens.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from typing import ClassVar

from memory_core.adapters.claude_code.compaction import CompactSummary, parse_compact_summary
from memory_core.adapters.claude_code.knowledge import compaction_drafts
from memory_core.adapters.claude_code.lines import Skip
from memory_core.adapters.claude_code.model import (
    Compaction,
    Draft,
    Exchange,
    Session,
    Transcript,
)
from memory_core.adapters.claude_code.parse import SKIP_COMPACT
from memory_core.adapters.claude_code.parts import PHASE_TOOLS, split_parts
from memory_core.adapters.claude_code.summary import session_summary
from memory_core.adapters.claude_code.text import clip
from memory_core.adapters.claude_code.threads import (
    ANSWER_CHARS,
    REQUEST_CHARS,
    Thread,
    thread,
)
from memory_core.model.errors import ExportFormatError

__all__ = ["EXTRACTORS", "DeterministicExtractor", "Draft", "Extractor", "Session", "clip",
           "extractor_class"]

SKIP_UNANSWERED = "request without an assistant text answer"
SKIP_EMPTY_SESSION = "session without a user request"
COMPACTION_MODES = ("sections", "summary", "skip")
UNKNOWN_REQUEST = "(the request was made before this transcript)"


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


def _positive(params: Mapping[str, str], key: str, default: int,
              unit: str = "characters") -> int:
    value = params.get(key)
    if value is None:
        return default
    if not value.strip().isdigit() or int(value) < 1:
        raise ExportFormatError(f"--param {key}={value!r}: use a positive number of {unit}")
    return int(value)


def _choice(params: Mapping[str, str], key: str, choices: tuple[str, ...]) -> str:
    value = params.get(key, choices[0]).strip().lower()
    if value not in choices:
        raise ExportFormatError(f"--param {key}={params[key]!r}: use one of "
                                f"{', '.join(choices)}")
    return value


class DeterministicExtractor(Extractor):
    """Threads, compaction knowledge and a session summary from the transcript alone; see
    the module doc."""

    name = "deterministic"
    params = frozenset({"request_chars", "answer_chars", "part_tools", "compactions"})

    def __init__(self, request_chars: int = REQUEST_CHARS, answer_chars: int = ANSWER_CHARS,
                 part_tools: int = PHASE_TOOLS, compactions: str = "sections") -> None:
        self.request_chars = request_chars
        self.answer_chars = answer_chars
        self.part_tools = part_tools
        self.compactions = compactions

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> DeterministicExtractor:
        return cls(_positive(params, "request_chars", REQUEST_CHARS),
                   _positive(params, "answer_chars", ANSWER_CHARS),
                   _positive(params, "part_tools", PHASE_TOOLS, "tool calls"),
                   _choice(params, "compactions", COMPACTION_MODES))

    def extract(self, session: Session, skip: Skip) -> list[Draft]:
        if not any(t.exchanges or t.compactions for t in session.transcripts):
            skip(SKIP_EMPTY_SESSION, session.main.where)
            return []
        parsed = {c.uuid: parse_compact_summary(c.text)
                  for t in session.transcripts for c in t.compactions}
        threads: list[Thread] = []
        unanswered = 0
        for transcript in session.transcripts:
            for exchange in transcript.exchanges:
                parts = split_parts(exchange, phase_tools=self.part_tools)
                if not parts:
                    skip(SKIP_UNANSWERED, exchange.where)
                    unanswered += 1
                threads += [thread(session, transcript, exchange, part, len(parts),
                                   request=self.request(exchange, parsed),
                                   request_chars=self.request_chars,
                                   answer_chars=self.answer_chars) for part in parts]
        threads = _with_subagents(session, threads)
        knowledge = self._compactions(session, threads, parsed, skip)
        drafts = [t.draft for t in threads] + knowledge
        exchanges = [e for t in session.transcripts for e in t.exchanges]
        if exchanges:
            keys = tuple(d.key for d in knowledge if d.memory_type == "session_summary")
            drafts.append(session_summary(session, threads, unanswered=unanswered,
                                          first_request=self.request(exchanges[0], parsed),
                                          compactions=keys))
        return drafts

    @staticmethod
    def request(exchange: Exchange, parsed: Mapping[str, CompactSummary]) -> str:
        """The request `exchange` works on: its own; for a continuation the one it
        continues, else the primary request its compaction summary states."""
        if exchange.request:
            return exchange.request
        summary = parsed.get(exchange.compaction or "")
        stated = summary.section("request") if summary else None
        return stated.text if stated and stated.text else UNKNOWN_REQUEST

    def _compactions(self, session: Session, threads: list[Thread],
                     parsed: Mapping[str, CompactSummary], skip: Skip) -> list[Draft]:
        drafts: list[Draft] = []
        seen: set[str] = set()
        for transcript in session.transcripts:
            previous: Compaction | None = None
            for compaction in transcript.compactions:
                if self.compactions == "skip":
                    skip(SKIP_COMPACT, compaction.where)
                    continue
                related = tuple(t.draft.key for t in threads
                                if _belongs(t, transcript, compaction, previous))
                made = compaction_drafts(
                    session, transcript, compaction, parsed[compaction.uuid],
                    relates_to=related, previous=previous,
                    sections=self.compactions == "sections", seen=seen, skip=skip)
                if made:
                    drafts += made
                    previous = compaction
        return drafts


def _belongs(item: Thread, transcript: Transcript, compaction: Compaction,
             previous: Compaction | None) -> bool:
    """Whether a thread is work `compaction` summarises (since `previous`) or continues."""
    if item.transcript is not transcript:
        return False
    part = item.part
    line = item.exchange.line if part.index == 1 else part.first.line
    since = previous.line if previous else 0
    return since < line < compaction.line or part.after_compaction == compaction.uuid


def _with_subagents(session: Session, threads: list[Thread]) -> list[Thread]:
    """`threads`, each main part that started a subagent derived from its threads."""
    by_agent: dict[str, list[str]] = {}
    for item in threads:
        if item.transcript is not session.main and item.transcript.agent_id:
            by_agent.setdefault(item.transcript.agent_id, []).append(item.draft.key)
    out = []
    for item in threads:
        links = tuple(k for agent in item.part.work.subagents for k in by_agent.get(agent, ()))
        out.append(replace(item, draft=replace(item.draft, derived_from=links))
                   if links and item.transcript is session.main else item)
    return out


#: Extractors by name, for `--param extractor=NAME`.
EXTRACTORS: dict[str, type[Extractor]] = {DeterministicExtractor.name: DeterministicExtractor}


def extractor_class(name: str) -> type[Extractor]:
    """The extractor registered as `name`; an unknown name lists the known ones."""
    if name not in EXTRACTORS:
        raise ExportFormatError(f"--param extractor={name!r} is not known; use one of: "
                                f"{', '.join(sorted(EXTRACTORS))}")
    return EXTRACTORS[name]
