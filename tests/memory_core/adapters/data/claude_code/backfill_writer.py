"""The writer `make_backfill.py` uses: Claude Code 2.0 transcript lines with stable ids.

One JSON object a line; an assistant message split into one line per block sharing
`message.id`; tool results as user lines with `toolUseResult`; a `compact_boundary` system
line before each compaction summary (`isCompactSummary`). Ids derive from the session and a
counter, so the fixture is the same each time it is written.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

CWD = "/home/sam/code/fxledger"
BRANCH = "feat/multi-currency"
SONNET = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"
PREAMBLE = ("This session is being continued from a previous conversation that ran out of "
            "context. The conversation is summarized below:\n")
CLOSING = ("\nPlease continue the conversation from where we left it off without asking the "
           "user any further questions. Continue with the last task that you were asked to "
           "work on.")
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789"


class Writer:
    """One transcript being written: ids, clock and parent chain."""

    def __init__(self, session: str, start: str, *, version: str = "2.0.62",
                 agent: str | None = None, pace: float = 1.0) -> None:
        self.session = session
        #: Every wait is multiplied by it (a long session thinks longer between calls).
        self.pace = pace
        self.version = version
        self.agent = agent
        self.clock = datetime.fromisoformat(start).replace(tzinfo=UTC)
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.count = 0

    def _id(self, prefix: str) -> str:
        self.count += 1
        seed = uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session}/{self.agent}/{self.count}")
        number = seed.int
        text = ""
        for _ in range(24):
            number, digit = divmod(number, len(ALPHABET))
            text += ALPHABET[digit]
        return prefix + text

    def _uuid(self) -> str:
        self.count += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session}/{self.agent}/{self.count}"))

    def tick(self, seconds: float) -> str:
        self.clock += timedelta(seconds=seconds * self.pace)
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def _common(self) -> dict[str, Any]:
        head: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": self.agent is not None,
                                "userType": "external", "cwd": CWD, "sessionId": self.session,
                                "version": self.version, "gitBranch": BRANCH}
        if self.agent:
            head["agentId"] = self.agent
        return head

    def _add(self, line: dict[str, Any]) -> str:
        self.lines.append(line)
        if "uuid" in line:
            self.parent = line["uuid"]
        return str(line.get("uuid", ""))

    def user(self, content: Any, seconds: float = 20, **extra: Any) -> str:
        return self._add({**self._common(), "type": "user",
                          "message": {"role": "user", "content": content},
                          "uuid": self._uuid(), "timestamp": self.tick(seconds), **extra})

    def meta(self, text: str) -> str:
        return self.user(text, seconds=0.01, isMeta=True)

    def message(self, blocks: list[dict[str, Any]], seconds: float = 6,
                model: str = SONNET) -> None:
        """One assistant API message: a line per block, the same `message.id`."""
        msg, request = self._id("msg_01"), self._id("req_011C")
        for number, block in enumerate(blocks):
            last = number == len(blocks) - 1
            stop = ("tool_use" if block["type"] == "tool_use" else "end_turn") if last else None
            self._add({**self._common(), "message": {
                "model": model, "id": msg, "type": "message", "role": "assistant",
                "content": [block], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 4, "cache_creation_input_tokens": 412,
                          "cache_read_input_tokens": 38211, "output_tokens": 180,
                          "service_tier": "standard"}},
                "requestId": request, "type": "assistant", "uuid": self._uuid(),
                "timestamp": self.tick(seconds if number == 0 else 0.4)})

    def say(self, text: str, seconds: float = 8, model: str = SONNET) -> None:
        self.message([{"type": "text", "text": text}], seconds, model)

    def act(self, text: str | None, name: str, given: dict[str, Any],
            result: str | list[dict[str, Any]], *,
            error: bool = False, seconds: float = 7, took: float = 3,
            tool_result: Any = None, model: str = SONNET) -> str:
        """An assistant message (optional text, then one tool call) and the tool's result."""
        tool_id = self._id("toolu_01")
        blocks = ([{"type": "text", "text": text}] if text else []) + [
            {"type": "tool_use", "id": tool_id, "name": name, "input": given}]
        self.message(blocks, seconds, model)
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result",
                                 "content": result}
        if error or name == "Bash":
            block["is_error"] = error
        if tool_result is None:
            tool_result = ({"stdout": result, "stderr": "", "interrupted": False,
                            "isImage": False} if name == "Bash" else {"type": "text"})
        return self.user([block], seconds=took, toolUseResult=tool_result)

    def read(self, path: str, text: str, why: str | None = None) -> None:
        body = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), 1))
        self.act(why, "Read", {"file_path": f"{CWD}/{path}"}, body)

    def edit(self, path: str, old: str, new: str, why: str | None = None) -> None:
        self.act(why, "Edit", {"file_path": f"{CWD}/{path}", "old_string": old,
                               "new_string": new},
                 f"The file {CWD}/{path} has been updated.")

    def write(self, path: str, text: str, why: str | None = None) -> None:
        self.act(why, "Write", {"file_path": f"{CWD}/{path}", "content": text},
                 f"File created successfully at: {CWD}/{path}")

    def bash(self, command: str, out: str, why: str | None = None, *, error: bool = False,
             description: str = "", took: float = 4) -> None:
        self.act(why, "Bash", {"command": command, "description": description or command},
                 out, error=error, took=took)

    def system(self, subtype: str, **fields: Any) -> None:
        self._add({**self._common(), "parentUuid": None, "logicalParentUuid": self.parent,
                   "type": "system", "subtype": subtype, "isMeta": False,
                   "timestamp": self.tick(1), "uuid": self._uuid(), "level": "info",
                   **fields})

    def compact(self, text: str, trigger: str, tokens: int) -> None:
        self.system("compact_boundary", content="Conversation compacted",
                    compactMetadata={"trigger": trigger, "preTokens": tokens})
        self.user(PREAMBLE + text + CLOSING, seconds=0.01, isVisibleInTranscriptOnly=True,
                  isCompactSummary=True)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line, ensure_ascii=False, separators=(",", ":"))
                                + "\n" for line in self.lines), encoding="utf-8")


def pytest_run(passed: int, failed: tuple[str, ...] = (), seconds: float = 11.8) -> str:
    lines = [f"FAILED tests/{name}" for name in failed]
    tail = f"{len(failed)} failed, {passed} passed" if failed else f"{passed} passed"
    return "\n".join(["." * 60, *lines, f"{tail} in {seconds:.2f}s"])

