"""Reading one Claude Code transcript (`<session>.jsonl`) into the exchanges it holds.

Claude Code appends one JSON object per line: `user` and `assistant` lines carry a `message`
(content: a string or a list of `text`, `thinking`, `tool_use`, `tool_result`, `image` blocks);
`summary`, `file-history-snapshot`, `queue-operation`, `progress`, `system` and newer types
are bookkeeping. One assistant API message is written as several lines (one block each)
sharing `message.id`.

An `Exchange` opens at each real user request and collects, as `Step`s in order, what the
assistant did until the next one: its text blocks, its tool calls (with the files they were
given, `file_path` / `notebook_path`, and a Bash call's command), the tools' results (errors,
`toolUseResult.agentId` of a subagent's report) and the compactions in between. A compaction
summary (`isCompactSummary`) becomes a `Compaction` of the transcript; the work after it
continues the open request, and when none is open (a transcript that starts with one, or
after a local command) a continuation exchange opens that names the last request. So does an
assistant line that follows a closed request: only assistant lines before the transcript's
first request or compaction are left out.

A slash command (`<command-name>/create-beads</command-name>` with its `<command-args>`)
is a request when the assistant works on it: "/create-beads <args>" opens the exchange at
the first assistant line after it, and the expansion Claude Code writes after the command
(an `isMeta` user line) is its context, counted in the exchange's `slash_command` metadata,
not a request of its own. A command the assistant does not answer (`/model`, `/compact`,
one followed by `<local-command-stdout>`) is left out as a command wrapper.

Everything else is left out with a reason (`skip`): tool-result carriers, `isMeta` lines,
command wrappers (`<local-command-stdout>`, `<bash-input>`, ...), interruption markers,
synthetic API-error messages, bookkeeping lines.

Malformed input raises `ExportFormatError` naming the file and line (see
`lines` for what a line must be): a user or assistant line without
`sessionId`, `uuid` or `timestamp`, a `message.content` that is neither text nor a list of
blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from memory_core.adapters.base import timestamp
from memory_core.adapters.claude_code.lines import Skip, blocks_of, iter_lines, required_text
from memory_core.adapters.claude_code.model import Compaction, Exchange, Step, Transcript
from memory_core.model.errors import ExportFormatError

#: Top-level fields of a user line the thread memory uses; the others go into its metadata.
USED_FIELDS = frozenset({"type", "message", "uuid", "parentUuid", "sessionId", "timestamp",
                         "cwd", "gitBranch", "version", "isSidechain", "agentId", "userType"})
FILE_KEYS = ("file_path", "notebook_path")
WRAPPER = re.compile(r"\s*<(command-name|command-message|command-args|local-command-stdout|"
                     r"local-command-stderr|local-command-caveat|bash-input|bash-stdout|"
                     r"bash-stderr|task-notification|user-prompt-submit-hook)>")
COMMAND_PART = re.compile(r"<(command-name|command-args)>(.*?)</\1>", re.DOTALL)
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
INTERRUPTED = "[Request interrupted by user"
#: A Bash call's command is kept this long (to recognise commits and test runs).
COMMAND_CHARS = 300

SKIP_TOOL_RESULT = "tool result line (tool output, not a request)"
SKIP_META = "meta line (isMeta: caveats and injected context)"
SKIP_EXPANSION = "slash command expansion (isMeta, kept as the command's context)"
SKIP_COMPACT = "compact summary (isCompactSummary; --param compactions=skip)"
SKIP_INTERRUPT = "interruption marker ([Request interrupted by user])"
SKIP_NO_TEXT = "user line without text (image only or empty)"
SKIP_SYNTHETIC = "synthetic assistant message (API error, no model answer)"
SKIP_ORPHAN = "assistant line before any user request"
SKIP_REPEAT = "repeated line (uuid already read)"
SKIP_TITLE = "summary line (kept as the session title)"
SKIP_OTHER_SUMMARY = "summary line of another session"


def command_request(text: str) -> str | None:
    """"/name args" of a slash command wrapper; None when `text` names no command.

    >>> command_request("<command-message>fix is running</command-message>"
    ...                 "<command-name>/fix</command-name><command-args>the CI</command-args>")
    '/fix the CI'
    """
    parts = {tag: value.strip() for tag, value in COMMAND_PART.findall(text)}
    name = parts.get("command-name", "")
    if not name:
        return None
    return f"{name if name.startswith('/') else '/' + name} {parts.get('command-args', '')}"\
        .strip()


@dataclass
class _Command:
    """A slash command waiting for the assistant's first line, which makes it a request."""

    obj: dict[str, Any]
    number: int
    where: str
    when: str
    request: str
    expansion_chars: int = 0


def _relative(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/\\") + "/"):
        return path[len(cwd.rstrip("/\\")) + 1:]
    return path


class _Reader:
    """The state of reading one transcript line by line."""

    def __init__(self, path: Path, where: str, skip: Skip) -> None:
        self.out = Transcript(path, where)
        self.skip = skip
        self.open: Exchange | None = None
        self.seen: set[str] = set()
        self.leaves: list[tuple[str, str, str]] = []  # (leafUuid, title, where)
        self.boundary: dict[str, Any] = {}  # compactMetadata of the last compact_boundary
        self.command: _Command | None = None

    def line(self, number: int, obj: dict[str, Any]) -> None:
        where = f"{self.out.where} line {number}"
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise ExportFormatError(f"{self.out.path}: line {number} has no 'type'")
        if kind == "summary":
            self.leaves.append((str(obj.get("leafUuid")), str(obj.get("summary") or ""), where))
            return
        if kind == "custom-title" and isinstance(obj.get("customTitle"), str):
            self.out.title = obj["customTitle"]
        if kind == "system" and obj.get("subtype") == "compact_boundary":
            meta = obj.get("compactMetadata")
            self.boundary = meta if isinstance(meta, dict) else {}
        if kind not in ("user", "assistant"):
            self.skip(f"{kind} line (not conversation)", where)
            return
        place = f"{self.out.path}: line {number}"
        session = required_text(obj.get("sessionId"), place, f"the {kind} line's 'sessionId'")
        uuid = required_text(obj.get("uuid"), place, f"the {kind} line's 'uuid'")
        when = timestamp(required_text(obj.get("timestamp"), place,
                                       f"the {kind} line's 'timestamp'"), place)
        blocks = blocks_of(obj.get("message"), place, kind)
        if uuid in self.seen:
            self.skip(SKIP_REPEAT, where)
            return
        self.seen.add(uuid)
        self._context(obj, session, when)
        if kind == "user":
            self._user(obj, blocks, number, where, when)
        else:
            self._assistant(obj, blocks, number, where, when)

    def _context(self, obj: dict[str, Any], session: str, when: str) -> None:
        out = self.out
        out.session_id = out.session_id or session
        out.times.append(datetime.fromisoformat(when.replace("Z", "+00:00")))
        out.is_sidechain = out.is_sidechain or obj.get("isSidechain") is True
        for attr, key in (("agent_id", "agentId"), ("cwd", "cwd"), ("git_branch", "gitBranch"),
                          ("version", "version")):
            if getattr(out, attr) is None and isinstance(obj.get(key), str) and obj[key]:
                setattr(out, attr, obj[key])

    def _user(self, obj: dict[str, Any], blocks: list[dict[str, Any]], number: int,
              where: str, when: str) -> None:
        if obj.get("isCompactSummary") is True:
            return self._compaction(obj, blocks, number, where, when)
        text = "\n\n".join(b["text"] for b in blocks if b["type"] == "text")
        if obj.get("isMeta") is True:
            if self.command is not None:
                self.command.expansion_chars += len(text)
                return self.skip(SKIP_EXPANSION, where)
            return self.skip(SKIP_META, where)
        if any(b["type"] == "tool_result" for b in blocks):
            return self._tool_results(obj, blocks, number, where, when)
        text = REMINDER.sub("", text).strip()
        wrapper = WRAPPER.match(text)
        if wrapper:
            self._close()
            self._drop_command()
            request = command_request(text)
            if request is not None:
                self.command = _Command(obj, number, where, when, request)
                return None
            return self.skip(_wrapper_reason(wrapper.group(1)), where)
        if text.startswith(INTERRUPTED):
            if self.open is not None:
                self.open.interrupted = True
            return self.skip(SKIP_INTERRUPT, where)
        if not text:
            return self.skip(SKIP_NO_TEXT, where)
        self._close()
        self._drop_command()
        self.open = _request(obj, number, where, when, text,
                             images=sum(b["type"] == "image" for b in blocks))

    def _drop_command(self) -> None:
        """Leave out a slash command the assistant did not answer."""
        if self.command is not None:
            self.skip(_wrapper_reason("command-name"), self.command.where)
            self.command = None

    def _open_command(self) -> Exchange | None:
        """The exchange of the slash command waiting for this assistant line, if any."""
        command, self.command = self.command, None
        if command is None:
            return None
        exchange = _request(command.obj, command.number, command.where, command.when,
                            command.request)
        exchange.extra["slash_command"] = {"name": command.request.split()[0],
                                           "expansion_chars": command.expansion_chars}
        return exchange

    def _compaction(self, obj: dict[str, Any], blocks: list[dict[str, Any]], number: int,
                    where: str, when: str) -> None:
        text = "\n\n".join(b["text"] for b in blocks if b["type"] == "text").strip()
        self._drop_command()
        last = self.open or (self.out.exchanges[-1] if self.out.exchanges else None)
        tokens = self.boundary.get("preTokens")
        trigger = self.boundary.get("trigger")
        self.boundary = {}
        compaction = Compaction(
            uuid=obj["uuid"], where=where, line=number, timestamp=when, text=text,
            index=len(self.out.compactions) + 1, request_uuid=_origin(last),
            trigger=trigger if isinstance(trigger, str) else None,
            pre_tokens=tokens if isinstance(tokens, int) else None)
        self.out.compactions.append(compaction)
        if self.open is None:
            self.open = self._continuation(obj["uuid"], where, number, when, compaction.uuid)
        self.open.steps.append(Step("compaction", obj["uuid"], number, when))

    def _continuation(self, uuid: str, where: str, number: int, when: str,
                      compaction: str | None) -> Exchange:
        """An exchange for work with no request open: it continues the last request."""
        last = self.out.exchanges[-1] if self.out.exchanges else None
        return Exchange(uuid=uuid, where=where, line=number, timestamp=when,
                        request=last.request if last else "", continues=_origin(last),
                        compaction=compaction, continuation=True)

    def _recent(self) -> str | None:
        """The last compaction, when no request started after it."""
        latest = self.out.compactions[-1] if self.out.compactions else None
        last = self.out.exchanges[-1] if self.out.exchanges else None
        return latest.uuid if latest and (last is None or latest.line >= last.line) else None

    def _tool_results(self, obj: dict[str, Any], blocks: list[dict[str, Any]], number: int,
                      where: str, when: str) -> None:
        self.skip(SKIP_TOOL_RESULT, where)
        if self.open is None:
            return
        result = obj.get("toolUseResult")
        agent = result.get("agentId") if isinstance(result, dict) else None
        for block in blocks:
            if block["type"] != "tool_result":
                continue
            used = block.get("tool_use_id")
            self.open.steps.append(Step(
                "result", obj["uuid"], number, when,
                tool_use_id=used if isinstance(used, str) else None,
                is_error=block.get("is_error") is True,
                agent_id=agent if isinstance(agent, str) and agent else None))
            agent = None  # one report per line

    def _assistant(self, obj: dict[str, Any], blocks: list[dict[str, Any]], number: int,
                   where: str, when: str) -> None:
        message = obj["message"]
        model = message.get("model")
        if model == "<synthetic>" or obj.get("isApiErrorMessage") is True:
            return self.skip(SKIP_SYNTHETIC, where)
        if self.open is None:
            self.open = self._open_command()
        if self.open is None:
            if not (self.out.exchanges or self.out.compactions):
                return self.skip(SKIP_ORPHAN, where)
            self.open = self._continuation(obj["uuid"], where, number, when, self._recent())
        message_id = message.get("id") if isinstance(message.get("id"), str) else obj["uuid"]
        step = partial(Step, uuid=obj["uuid"], line=number, timestamp=when,
                       message_id=message_id, model=model if isinstance(model, str) else None)
        for block in blocks:
            if block["type"] == "text" and block["text"].strip():
                self.open.steps.append(step("text", text=block["text"].strip()))
            elif block["type"] == "tool_use" and isinstance(block.get("name"), str):
                given: dict[str, Any] = block["input"] if isinstance(block.get("input"),
                                                                    dict) else {}
                files = [_relative(given[key], self.out.cwd) for key in FILE_KEYS
                         if isinstance(given.get(key), str) and given[key]]
                command, used = given.get("command"), block.get("id")
                self.open.steps.append(step(
                    "tool", tool=block["name"], files=tuple(files),
                    text=command[:COMMAND_CHARS] if isinstance(command, str) else "",
                    tool_use_id=used if isinstance(used, str) else None))

    def _close(self) -> None:
        exchange, self.open = self.open, None
        # A continuation that holds only its compaction (a manual /compact between two
        # requests) has no work of its own: the compaction is kept by itself.
        if exchange is not None and not (exchange.continuation and all(
                step.kind == "compaction" for step in exchange.steps)):
            self.out.exchanges.append(exchange)

    def finish(self) -> Transcript:
        self._close()
        self._drop_command()
        for leaf, title, where in self.leaves:
            if leaf in self.seen and title:
                self.out.title = self.out.title or title
                self.skip(SKIP_TITLE, where)
            else:
                self.skip(SKIP_OTHER_SUMMARY, where)
        return self.out


def _wrapper_reason(tag: str) -> str:
    return f"command wrapper <{tag}> (slash command or shell)"


def _request(obj: dict[str, Any], number: int, where: str, when: str, text: str, *,
             images: int = 0) -> Exchange:
    """The exchange a user line opens with `text` as its request."""
    parent = obj.get("parentUuid")
    return Exchange(uuid=obj["uuid"], where=where, line=number, timestamp=when, request=text,
                    parent_uuid=parent if isinstance(parent, str) else None,
                    extra={k: v for k, v in obj.items() if k not in USED_FIELDS},
                    images=images)


def _origin(exchange: Exchange | None) -> str | None:
    """The uuid of the request `exchange` works on (None when it is not known)."""
    if exchange is None:
        return None
    return exchange.continues or (None if exchange.continuation else exchange.uuid)


def read_transcript(path: Path, where: str, skip: Skip) -> Transcript:
    """Parse the transcript at `path` (`where` names it in skips and records)."""
    reader = _Reader(path, where, skip)
    for number, obj in iter_lines(path, where, skip):
        reader.line(number, obj)
    return reader.finish()
