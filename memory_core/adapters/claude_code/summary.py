"""The `session_summary` the deterministic extractor writes from a transcript alone.

Its text: project, branch, time span and model; the title; the first request; how many
requests were answered (and in how many threads, when long ones were cut into parts), by
whom; how many compactions; tools with counts and tool errors; files touched. Its key is
`session`; it is `derived_from` every thread of the session and `relates_to` the session's
compaction summaries.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from memory_core.adapters.claude_code.model import Draft, Session
from memory_core.adapters.claude_code.text import clip, compact, plural, span_text
from memory_core.adapters.claude_code.threads import FILES_KEPT, Thread
from memory_core.model.canonical import iso

#: Files named in the summary's text (all of them, up to `FILES_KEPT`, in metadata).
FILES_SHOWN = 8


def _sorted(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def session_summary(session: Session, threads: Sequence[Thread], *, first_request: str,
                    unanswered: int, compactions: Sequence[str]) -> Draft:
    """The summary draft; `compactions` are the keys of the session's compaction summaries.
    Tools, errors and files count every exchange, answered or not."""
    main = session.main
    tools: Counter[str] = Counter()
    files: list[str] = []
    errors = 0
    for transcript in session.transcripts:
        for exchange in transcript.exchanges:
            work = exchange.work
            tools.update(dict(work.tools))
            files += [f for f in work.files if f not in files]
            errors += work.tool_errors
    models = Counter(t.part.work.model for t in threads
                     if t.transcript is main and t.part.work.model)
    model = models.most_common(1)[0][0] if models else next(
        (t.draft.agent for t in threads if t.transcript is main and t.draft.agent), None)
    span = session.span()
    answered = list(dict.fromkeys((id(t.transcript), t.exchange.uuid) for t in threads))
    by_subagent = len({key for key in answered if key[0] != id(main)})
    agents = [t.agent_id for t in session.subagents if t.agent_id]

    head = f"Claude Code session in {session.project}"
    if main.git_branch and main.git_branch != "HEAD":
        head += f" on branch {main.git_branch}"
    if span:
        head += f", {span_text(*span)}"
    lines = [head + (f", {model}." if model else ".")]
    if main.title:
        lines.append(f"Title: {main.title}")
    lines.append(f"First request: {clip(first_request, 300)}")
    done = plural(len(answered), "exchange")
    if len(threads) > len(answered):
        done += f" in {plural(len(threads), 'thread')}"
    if by_subagent:
        done += (f", {by_subagent} of them by "
                 f"{'subagent' if len(agents) == 1 else 'subagents'} {', '.join(agents)}")
    if unanswered:
        done += f"; {plural(unanswered, 'request')} without a text answer"
    lines.append(done + ".")
    if compactions:
        each = ", each" if len(compactions) > 1 else ","
        lines.append(f"{plural(len(compactions), 'compaction')}{each} kept as a summary of "
                     f"its own.")
    if tools:
        used = ", ".join(f"{name} ×{n}" for name, n in _sorted(tools).items())
        lines.append(f"Tools: {used}" + (f"; {plural(errors, 'tool error')}."
                                         if errors else "."))
    else:
        lines.append("No tools used.")
    if files:
        more = f" (+{len(files) - FILES_SHOWN} more)" if len(files) > FILES_SHOWN else ""
        lines.append(f"Files touched: {', '.join(files[:FILES_SHOWN])}{more}.")
    metadata = compact({
        "transcript": main.where, "project_folder": session.project_folder,
        "cwd": main.cwd, "git_branch": main.git_branch,
        "claude_code_version": main.version, "title": main.title,
        "started_at": iso(span[0]) if span else None,
        "ended_at": iso(span[1]) if span else None,
        "duration_seconds": round((span[1] - span[0]).total_seconds()) if span else None,
        "exchanges": len(answered), "threads": len(threads), "unanswered": unanswered,
        "compactions": len(compactions), "subagents": agents,
        "tools": _sorted(tools), "tool_errors": errors, "files": files[:FILES_KEPT],
        "files_total": len(files), "models": _sorted(models),
    })
    created = str(iso(span[0])) if span else (threads[0].draft.created_at if threads else "")
    return Draft(key="session", memory_type="session_summary", content="\n".join(lines),
                 created_at=created, where=main.where, agent=model, metadata=metadata,
                 derived_from=tuple(t.draft.key for t in threads),
                 relates_to=tuple(compactions))
