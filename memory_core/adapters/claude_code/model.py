"""The shapes of a Claude Code import: the steps, exchanges and compactions a transcript is
read into, a session, and the drafts an extractor makes of it.

`parse` fills them line by line; `parts` cuts an exchange's steps
into parts; the extractors read them. An `Exchange` is one real user request (or the
continuation of one after a compaction) and the `Step`s the assistant took for it, in
transcript order; `Work` sums a run of steps up (texts, tools, files, errors, subagents) and
picks its concluding text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

#: A short assistant text that only announces the next tool call ("Let me remove them.").
NARRATION = re.compile(r"(let me|now let me|let's|i'll|i will|now i'll|i need to|next,? i'll|"
                       r"first,? let me|now i need to)\b", re.IGNORECASE)
NARRATION_CHARS = 160


@dataclass(frozen=True)
class Step:
    """One thing that happened inside an exchange: an assistant text or tool call, a tool's
    result, or a compaction of the context."""

    kind: Literal["text", "tool", "result", "compaction"]
    uuid: str
    line: int
    timestamp: str
    #: The assistant API message (texts and tool calls of one message share it).
    message_id: str | None = None
    model: str | None = None
    #: text: the block; tool: a Bash command; result: the start of the tool's output.
    text: str = ""
    tool: str | None = None
    tool_use_id: str | None = None
    files: tuple[str, ...] = ()
    is_error: bool = False
    #: result: the subagent that reported (`toolUseResult.agentId`).
    agent_id: str | None = None


@dataclass(frozen=True)
class Compaction:
    """A compaction summary (`isCompactSummary`): Claude Code's summary of the context
    before it, which the work after it continues from."""

    uuid: str
    where: str
    line: int
    timestamp: str
    text: str
    #: 1 for the transcript's first compaction, 2 for the second, ...
    index: int
    #: The request being worked on when it happened (None when the transcript holds none).
    request_uuid: str | None = None
    #: From the `compact_boundary` system line before it: "auto" or "manual", tokens before.
    trigger: str | None = None
    pre_tokens: int | None = None


@dataclass
class Exchange:
    """One real user request and what the assistant did until the next one; or, when work
    goes on after a compaction with no request open, the continuation of the last one."""

    uuid: str
    where: str
    line: int
    timestamp: str
    request: str
    parent_uuid: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    images: int = 0
    interrupted: bool = False
    steps: list[Step] = field(default_factory=list)
    #: A continuation (work with no request open) names the request it continues, when the
    #: transcript holds it, and the compaction that opened it, if one did.
    continuation: bool = False
    continues: str | None = None
    compaction: str | None = None

    @property
    def ended_at(self) -> str:
        """The time of its last step (its own time when it has none)."""
        return self.steps[-1].timestamp if self.steps else self.timestamp

    @property
    def work(self) -> Work:
        """Its steps summed up."""
        return Work.of(self.steps)

    @property
    def answer(self) -> str:
        """The concluding text of all its steps (`Work.answer`); "" when it has no text."""
        return self.work.answer


@dataclass(frozen=True)
class Work:
    """A run of steps summed up: what the assistant wrote and which tools it used."""

    #: (message id, text) of every assistant text block, in order.
    texts: tuple[tuple[str, str], ...] = ()
    #: Messages whose text goes on to a tool call in the same message (narration).
    leading: frozenset[str] = frozenset()
    models: tuple[tuple[str, str], ...] = ()
    tools: tuple[tuple[str, int], ...] = ()
    tool_errors: int = 0
    files: tuple[str, ...] = ()
    subagents: tuple[str, ...] = ()

    @classmethod
    def of(cls, steps: Sequence[Step]) -> Work:
        """The work of `steps`."""
        texts: list[tuple[str, str]] = []
        spoke: set[str] = set()  # messages with text so far
        models: dict[str, str] = {}
        files: list[str] = []
        subagents: list[str] = []
        leading: set[str] = set()
        tools: Counter[str] = Counter()
        errors = 0
        for step in steps:
            if step.message_id and step.model:
                models[step.message_id] = step.model
            if step.kind == "text" and step.message_id:
                texts.append((step.message_id, step.text))
                spoke.add(step.message_id)
            elif step.kind == "tool" and step.tool:
                tools[step.tool] += 1
                files += [f for f in step.files if f not in files]
                if step.message_id in spoke:
                    leading.add(step.message_id)
            elif step.kind == "result":
                errors += step.is_error
                if step.agent_id and step.agent_id not in subagents:
                    subagents.append(step.agent_id)
        return cls(tuple(texts), frozenset(leading), tuple(models.items()),
                   tuple(sorted(tools.items(), key=lambda item: (-item[1], item[0]))),
                   errors, tuple(files), tuple(subagents))

    def _text_of(self, message: str) -> str:
        return "\n\n".join(text for m, text in self.texts if m == message).strip()

    @property
    def answer_message(self) -> str | None:
        """The message holding the concluding text: the last one that ends without a tool
        call; else the last one that is more than a short announcement of the next tool
        call ("Let me remove them."); else the last one with text."""
        messages = list(dict.fromkeys(m for m, _ in self.texts))
        for message in reversed(messages):
            if message not in self.leading:
                return message
        for message in reversed(messages):
            text = self._text_of(message)
            if len(text) > NARRATION_CHARS or not NARRATION.match(text):
                return message
        return messages[-1] if messages else None

    @property
    def answer(self) -> str:
        """The text blocks of `answer_message`, joined."""
        message = self.answer_message
        return self._text_of(message) if message is not None else ""

    @property
    def model(self) -> str | None:
        """The model that wrote the answer (else the last model seen)."""
        models = dict(self.models)
        message = self.answer_message
        if message is not None and message in models:
            return models[message]
        return self.models[-1][1] if self.models else None


@dataclass
class Transcript:
    """What one `.jsonl` file holds."""

    path: Path
    where: str
    session_id: str | None = None
    agent_id: str | None = None
    is_sidechain: bool = False
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    title: str | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)


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
    """A memory an extractor wants written, before it has an id."""

    key: str
    memory_type: str
    content: str
    created_at: str
    where: str
    agent: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: Keys of the drafts (of the same session) this one is built from: `derived_from` edges.
    derived_from: tuple[str, ...] = ()
    #: Keys of the drafts (of the same session) it belongs with: `relates_to` edges.
    relates_to: tuple[str, ...] = ()
