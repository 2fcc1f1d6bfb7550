"""The `thread` drafts of one exchange: one per part (see `parts`).

A request answered in one part reads "User: <request>\\n\\nAssistant: <answer>" ("Task: ... /
Subagent: ..." inside subagent files), the request clipped at `request_chars` and the answer
at `answer_chars`. A request cut into parts gives one thread per part: the first starts with
the request, the others with "Continuing request: <the request, shortened>", and the answer
says which part it is ("Assistant (part 2 of 4, after a compaction): ..."); so does the work
of a continuation (after a compaction with no request open). Each part's answer is its
concluding text; the full lengths, the part, why it ended and the transcript line where it
starts are in metadata.

Keys: `thread <request uuid>` for the first part (the key one-part threads always had),
`thread <request uuid> part <n>` for the others; a continuation's uuid is that of the line
that opened it (its compaction, or its first assistant line).
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_core.adapters.claude_code.model import Draft, Exchange, Session, Transcript
from memory_core.adapters.claude_code.parts import Part
from memory_core.adapters.claude_code.text import clip, compact

REQUEST_CHARS = 2000
ANSWER_CHARS = 4000
#: The request is shortened this much at the head of a later part.
CONTEXT_CHARS = 300
#: Files listed in metadata (the count of all is kept elsewhere).
FILES_KEPT = 50


@dataclass(frozen=True)
class Thread:
    """A thread draft with the exchange and part it was written from."""

    transcript: Transcript
    exchange: Exchange
    part: Part
    parts: int
    draft: Draft


def thread_key(exchange: Exchange, part: Part) -> str:
    """The draft key of `part` of `exchange`."""
    key = f"thread {exchange.uuid}"
    return key if part.index == 1 else f"{key} part {part.index}"


def thread(session: Session, transcript: Transcript, exchange: Exchange, part: Part,
           parts: int, *, request: str, request_chars: int = REQUEST_CHARS,
           answer_chars: int = ANSWER_CHARS) -> Thread:
    """The thread of one part; `request` is the request it answers, as shown."""
    sub = transcript is not session.main
    work = part.work
    answer = work.answer
    opening = part.index == 1 and not exchange.continuation
    asked, answered = ("Task", "Subagent") if sub else ("User", "Assistant")
    if opening:
        head = f"{asked}: {clip(request, request_chars)}"
    else:
        head = f"Continuing {'task' if sub else 'request'}: {clip(request, CONTEXT_CHARS)}"
    notes = [f"part {part.index} of {parts}"] if parts > 1 else []
    notes += ["after a compaction"] if part.after_compaction else []
    if notes:
        answered += f" ({', '.join(notes)})"
    content = f"{head}\n\n{answered}: {clip(answer, answer_chars)}"
    first = part.index == 1
    last = part.index == parts
    metadata = compact({
        "transcript": transcript.where, "line": exchange.line if first else part.first.line,
        "uuid": exchange.uuid if first else part.first.uuid,
        "request_uuid": None if opening else exchange.continues or (
            None if exchange.continuation else exchange.uuid),
        "parent_uuid": exchange.parent_uuid if first else None, "cwd": transcript.cwd,
        "git_branch": transcript.git_branch, "claude_code_version": transcript.version,
        "model": work.model, "is_sidechain": sub, "agent_id": transcript.agent_id,
        "answer_message_id": work.answer_message, "ended_at": part.steps[-1].timestamp,
        "tools": dict(work.tools), "tool_errors": work.tool_errors,
        "files": list(work.files[:FILES_KEPT]), "subagents": list(work.subagents),
        "images": exchange.images if first else 0,
        "interrupted": exchange.interrupted and last,
        "request_chars": len(request), "answer_chars": len(answer),
        "truncated": len(request) > (request_chars if opening else CONTEXT_CHARS)
        or len(answer) > answer_chars,
        "part": part.index if parts > 1 else 0, "parts": parts if parts > 1 else 0,
        "boundary": part.boundary if parts > 1 and not last else None,
        "after_compaction": part.after_compaction, "continuation": exchange.continuation,
        "extra": exchange.extra if first else {},
    })
    where = exchange.where if first else f"{transcript.where} line {part.first.line}"
    draft = Draft(key=thread_key(exchange, part), memory_type="thread", content=content,
                  created_at=exchange.timestamp if first else part.first.timestamp,
                  where=where, agent=transcript.agent_id if sub else work.model,
                  tags=("subagent",) if sub else (), metadata=metadata)
    return Thread(transcript, exchange, part, parts, draft)
