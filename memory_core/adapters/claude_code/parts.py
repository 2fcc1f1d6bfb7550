"""Cutting a long exchange into parts at its natural boundaries.

A request that kept an agent busy for hours holds several pieces of work. The steps of an
exchange are cut into `Part`s, each ending with the assistant text that concludes it:

- at a compaction (the part before it ends there, the next one follows it);
- after a milestone, at the assistant text that follows it: a subagent's report, a
  `git commit` or a test run (pytest, npm test, cargo test, go test, make test, tox, ...)
  that succeeded - once the part holds at least `min_tools` tool calls, so a quick check
  does not make a part of its own (a failing run is work in progress, not a boundary);
- after a long tool-driven phase (`phase_tools` tool calls), at the next assistant text.

A cut falls after the last text block of that message; a tool call in the same message opens
the next part. Steps with no assistant text go with the part before them (or, at the start,
the part after), so every text lands in a part and a part always has an answer: the
concluding text `Work.answer` picks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from memory_core.adapters.claude_code.model import Exchange, Step, Work

PHASE_TOOLS = 25
MIN_TOOLS = 4
COMMIT = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?commit\b")
TEST_RUN = re.compile(
    r"\b(?:pytest|py\.test|tox|nox|jest|vitest|ctest)\b|-m\s+unittest\b|\.ci/run\b|"
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\b(?:cargo|go|mvn|dotnet)\s+test\b|"
    r"\bgradlew?\s+test\b|\bmake\s+(?:test|check)\b")
#: Installing a test runner is not running the tests.
INSTALL = re.compile(r"\b(?:install|add)\b[^&;|\n]*")


@dataclass(frozen=True)
class Part:
    """A run of an exchange's steps that ends with a concluding assistant text."""

    index: int
    steps: tuple[Step, ...]
    #: Why it ended: "subagent report", "commit", "test run", "compaction",
    #: "long phase" or "end" (of the exchange).
    boundary: str
    #: The compaction it follows, when it starts the work after one.
    after_compaction: str | None = None

    @property
    def first(self) -> Step:
        """Its first step."""
        return self.steps[0]

    @cached_property
    def work(self) -> Work:
        """Its steps summed up (answer, tools, files, errors, subagents)."""
        return Work.of(self.steps)


def milestone(step: Step) -> str | None:
    """"commit" or "test run" for a Bash call that commits or runs tests, else None.

    >>> milestone(Step("tool", "u", 1, "t", tool="Bash", text="uv run pytest -q"))
    'test run'
    """
    if step.kind != "tool" or step.tool != "Bash":
        return None
    if COMMIT.search(step.text):
        return "commit"
    return "test run" if TEST_RUN.search(INSTALL.sub("", step.text)) else None


class _Cutter:
    """The state of one walk over an exchange's steps."""

    def __init__(self, after: str | None) -> None:
        self.parts: list[tuple[list[Step], str, str | None]] = []
        self.current: list[Step] = []
        self.after = after
        self.tools = 0
        self.reached: str | None = None

    def cut(self, boundary: str) -> None:
        if not any(step.kind == "text" for step in self.current):
            if self.parts and self.current:  # no text of its own: goes with the part before
                self.parts[-1][0].extend(self.current)
                self.current = []
            return
        self.parts.append((self.current, boundary, self.after))
        self.current, self.after, self.tools, self.reached = [], None, 0, None


def split_parts(exchange: Exchange, *, phase_tools: int = PHASE_TOOLS,
                min_tools: int = MIN_TOOLS) -> list[Part]:
    """The parts of `exchange`, in order; none when it holds no assistant text."""
    return cut_steps(exchange.steps, after=exchange.compaction, phase_tools=phase_tools,
                     min_tools=min_tools)


def cut_steps(steps: Sequence[Step], *, after: str | None = None,
              phase_tools: int = PHASE_TOOLS, min_tools: int = MIN_TOOLS) -> list[Part]:
    """`steps` cut into parts (see the module doc); `after`: the compaction they follow."""
    walk = _Cutter(after)
    awaited: dict[str, str] = {}  # tool_use_id -> milestone its result completes
    for index, step in enumerate(steps):
        if step.kind == "compaction":
            walk.cut("compaction")
            walk.after = step.uuid
            continue
        walk.current.append(step)
        if step.kind == "tool":
            walk.tools += 1
            kind = milestone(step)
            if kind and step.tool_use_id:
                awaited[step.tool_use_id] = kind
        elif step.kind == "result":
            kind = awaited.pop(step.tool_use_id or "", None)
            if step.agent_id:
                walk.reached = "subagent report"
            elif kind and not step.is_error:
                walk.reached = kind
        elif step.kind == "text":
            following = steps[index + 1] if index + 1 < len(steps) else None
            if following is not None and following.kind == "text" \
                    and following.message_id == step.message_id:
                continue  # the message goes on with more text: cut after its last block
            if walk.reached and walk.tools >= min_tools:
                walk.cut(walk.reached)
            elif walk.tools >= phase_tools:
                walk.cut("long phase")
            walk.reached = None  # a milestone is concluded by the text right after it
    walk.cut("end")
    return [Part(number, tuple(steps_), boundary, after_)
            for number, (steps_, boundary, after_) in enumerate(walk.parts, start=1)]
