"""The drafts of one compaction summary: the summary itself, and what its sections teach.

- `session_summary` (key `compaction <uuid>`, tag `compaction`): a head line (project,
  branch, the span from the transcript's start to the compaction, or the compaction's time
  when the transcript opens with it) and the summary text
  without preamble, analysis and closing instruction, clipped at `summary_chars`;
  `relates_to` the threads it belongs with (given by the caller) and `derived_from` the
  transcript's previous compaction summary, which the model had in its context.
- with `sections=True`, when the headings were recognised (`compaction`):
  `lesson` memories (`lesson <uuid> <n>`, one per error/fix pair), `decision` memories
  (`decision <uuid> <n>`) and `thread` memories tagged `pending` (`pending <uuid> <n>`, one
  per pending task), each `derived_from` the summary. An item a previous compaction of the
  session already gave (the model often carries them over) is skipped with a reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from memory_core.adapters.claude_code.compaction import CompactSummary
from memory_core.adapters.claude_code.model import Compaction, Draft, Session, Transcript
from memory_core.adapters.claude_code.sections import decisions, lessons, pending
from memory_core.adapters.claude_code.text import clip, compact, span_text
from memory_core.model.canonical import iso

SUMMARY_CHARS = 16000
SKIP_UNSURE = ("compaction summary without recognised section headings (kept whole as one "
               "session_summary, no lessons, decisions or pending tasks taken from it)")
SKIP_REPEATED = "lesson, decision or pending task repeated from an earlier compaction summary"
SKIP_EMPTY = "compaction summary without text"


def summary_key(compaction: Compaction) -> str:
    """The draft key of a compaction's summary."""
    return f"compaction {compaction.uuid}"


def _normal(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def compaction_drafts(session: Session, transcript: Transcript, compaction: Compaction,
                      parsed: CompactSummary, *, relates_to: tuple[str, ...],
                      previous: Compaction | None, sections: bool, seen: set[str],
                      skip: Callable[[str, str], None],
                      summary_chars: int = SUMMARY_CHARS) -> list[Draft]:
    """The drafts of `compaction` (see the module doc); `seen` holds the normalised items
    earlier compactions of the session gave, and is extended."""
    if not parsed.summary.strip():
        skip(SKIP_EMPTY, compaction.where)
        return []
    key = summary_key(compaction)
    at = datetime.fromisoformat(compaction.timestamp.replace("Z", "+00:00"))
    start = min([t for t in transcript.times if t <= at], default=at)
    head = f"Compaction summary {compaction.index} of a Claude Code session in {session.project}"
    if transcript.git_branch and transcript.git_branch != "HEAD":
        head += f" on branch {transcript.git_branch}"
    if start < at:
        head += f", {span_text(start, at)}"
    else:  # the transcript opens with it: the work it sums up is in an earlier one
        head += f", at the start of the transcript ({at:%Y-%m-%d %H:%M} UTC)"
    if transcript is not session.main:
        head += f", subagent {transcript.agent_id}"
    common = compact({
        "transcript": transcript.where, "line": compaction.line,
        "compaction_uuid": compaction.uuid, "compaction": compaction.index,
        "git_branch": transcript.git_branch, "cwd": transcript.cwd,
        "agent_id": transcript.agent_id if transcript is not session.main else None,
    })
    taught: list[Draft] = []
    if sections and not parsed.sections:
        skip(SKIP_UNSURE, compaction.where)
    elif sections:
        found = ([("lesson", "lesson", lesson.text, {"has_fix": lesson.fix is not None})
                  for lesson in lessons(parsed)]
                 + [("decision", "decision", text, {}) for text in decisions(parsed)]
                 + [("pending", "thread", f"Pending task: {text}", {})
                    for text in pending(parsed)])
        numbers: dict[str, int] = {}
        for kind, memory_type, text, extra in found:
            normal = f"{kind} {_normal(text)}"
            if normal in seen:
                skip(SKIP_REPEATED, compaction.where)
                continue
            seen.add(normal)
            numbers[kind] = numbers.get(kind, 0) + 1
            taught.append(Draft(
                key=f"{kind} {compaction.uuid} {numbers[kind]}", memory_type=memory_type,
                content=text, created_at=compaction.timestamp, where=compaction.where,
                tags=("pending",) if kind == "pending" else (),
                metadata={**common, "extracted_from": "compaction summary", **extra},
                derived_from=(key,)))
    counted = {kind: sum(d.key.startswith(kind + " ") for d in taught)
               for kind in ("lesson", "decision", "pending")}
    summary = Draft(
        key=key, memory_type="session_summary", tags=("compaction",),
        content=f"{head}:\n\n{clip(parsed.summary, summary_chars)}",
        created_at=compaction.timestamp, where=compaction.where,
        metadata={**common, **compact({
            "request_uuid": compaction.request_uuid, "trigger": compaction.trigger,
            "pre_tokens": compaction.pre_tokens, "started_at": iso(start),
            "ended_at": compaction.timestamp,
            "duration_seconds": round((at - start).total_seconds()),
            "sections": [s.title for s in parsed.sections],
            "analysis_chars": parsed.analysis_chars, "summary_chars": len(parsed.summary),
            "truncated": len(parsed.summary) > summary_chars,
            "lessons": counted["lesson"], "decisions": counted["decision"],
            "pending": counted["pending"]})},
        derived_from=(summary_key(previous),) if previous else (),
        relates_to=relates_to)
    return [summary, *taught]
