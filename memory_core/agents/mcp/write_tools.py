"""The L3 write tools: `remember`, `cite`, `correct` and `supersede`, each one audited write
by the calling agent (served unless the server is `--read-only`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from memory_core.agents.mcp.budgets import described
from memory_core.agents.mcp.remember import (
    MAX_CONTENT_CHARS,
    MAX_SOURCES,
    Link,
    check_text,
    remember,
    remember_reflection,
)
from memory_core.agents.mcp.session import ToolState, refuse
from memory_core.model.schema import IMPORTANCE_TIERS, MEMORY_TYPES, RELATIONS
from memory_core.model.untrusted import shown

MemoryId = Annotated[str, Field(min_length=1, max_length=200,
                                description="A memory id, as recall returns them.")]
Note = Annotated[str | None, Field(max_length=2000)]


class LinkArg(BaseModel):
    """A link from the new memory: `kind` (a relation) to memory `to`."""

    to: Annotated[str, Field(min_length=1, max_length=200, description="A memory id.")]
    kind: Annotated[str, Field(description=f"One of: {', '.join(RELATIONS)}.")]


def register(server: MCPServer[Any], state: ToolState) -> None:
    """Add the write tools to `server`."""
    write = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                            idempotent_hint=False)

    @server.tool(name="remember", annotations=write, structured_output=False,
                 description=described("remember", (
                     f"Keep something worth remembering across sessions: a decision, a "
                     f"lesson, a pattern, a preference, a fact. One idea per memory, in "
                     f"your own words (up to {MAX_CONTENT_CHARS:,} characters). memlens "
                     f"embeds it and, when the same content is held already, returns that "
                     f"memory's id instead. `links` tie it to memories recall returned. "
                     f"A reflection you wrote from several memories: type=\"reflection\" "
                     f"and `consolidates` their ids (consolidation_candidates proposes "
                     f"groups): one undoable batch, linked to each.")))
    def remember_tool(
        content: Annotated[str, Field(description="What to remember.")],
        type: Annotated[str, Field(description=f"One of: {', '.join(MEMORY_TYPES)}.")],
        ctx: Context[Any, Any],
        tags: Annotated[list[str] | None, Field(max_length=32)] = None,
        why: Annotated[str | None, Field(description="Why it matters or where it came "
                                                     "from.")] = None,
        project: str | None = None,
        session: Annotated[str | None, Field(description=(
            "Session id (default: this MCP session)."))] = None,
        importance: Annotated[str, Field(description=f"One of: "
                                                     f"{', '.join(IMPORTANCE_TIERS)}.")
                              ] = "normal",
        links: Annotated[list[LinkArg] | None, Field(max_length=20)] = None,
        consolidates: Annotated[list[str] | None, Field(max_length=MAX_SOURCES, description=(
            "With type reflection: the ids of the memories it consolidates (at least 2)."
        ))] = None,
    ) -> str:
        caller = state.caller(ctx)
        if consolidates is not None:
            if type.strip().lower() != "reflection":
                raise refuse(f"consolidates goes with type \"reflection\", not {shown(type)}: "
                             f"a reflection is what consolidates memories")
            if links:
                raise refuse("links do not go with consolidates (the reflection is linked "
                             "to each consolidated memory); link it afterwards")
            with state.acting(caller) as store:
                return remember_reflection(store, caller, content, consolidates, tags=tags,
                                           why=why, project=project, session=session,
                                           importance=importance)
        with state.acting(caller) as store:
            return remember(store, caller, content, type, tags=tags, why=why, project=project,
                            session=session, importance=importance,
                            links=[Link(x.to, x.kind) for x in links or []])

    @server.tool(name="cite", annotations=write, structured_output=False,
                 description=described("cite", (
                     "Say that your answer used these memories (ids from recall): cited "
                     "memories decay more slowly. Call it once per answer.")))
    def cite_tool(ids: Annotated[list[str], Field(min_length=1, max_length=50)],
                  ctx: Context[Any, Any], note: Note = None) -> str:
        from memory_core.curation import cite

        caller = state.caller(ctx)
        with state.acting(caller) as store:
            count = cite(store, ids, actor=caller.actor, session_id=caller.session_id,
                         query=note)
        return f"cited {count} memor{'y' if count == 1 else 'ies'}"

    @server.tool(name="correct", annotations=write, structured_output=False,
                 description=described("correct", (
                     "Correct a memory that proved wrong or stale: a "
                     "verdict on what it said (accepted, modified, rejected: its "
                     "confidence), a kind (superseded, deprecated, refined, merged: its "
                     "stability; all but deprecated need the `replacement` memory's id), "
                     "or both. To replace its text, use supersede.")))
    def correct_tool(
        id: MemoryId, ctx: Context[Any, Any],
        verdict: Literal["accepted", "modified", "rejected"] | None = None,
        kind: Literal["superseded", "deprecated", "refined", "merged"] | None = None,
        note: Note = None, replacement: MemoryId | None = None,
    ) -> str:
        from memory_core.curation import correct

        caller = state.caller(ctx)
        if note is not None:
            check_text("note", note, 2000, multiline=True)
        with state.acting(caller) as store:
            report = correct(store, id, verdict, kind=kind, note=note,
                             replacement=replacement, actor=caller.actor,
                             session_id=caller.session_id)
        return "\n".join([report.summary(), *report.notes[:4]])

    @server.tool(name="supersede", annotations=write, structured_output=False,
                 description=described("supersede", (
                     "Replace a memory with new content: a new memory (same type, project "
                     "and tags) takes its place in recall, the old one is kept as "
                     "superseded and linked to it.")))
    def supersede_tool(old_id: MemoryId, content: Annotated[str, Field(
                           description="The replacement's content.")],
                       ctx: Context[Any, Any],
                       why: Annotated[str | None, Field(description="Why it changed.")
                                      ] = None) -> str:
        from memory_core.curation import supersede

        caller = state.caller(ctx)
        check_text("content", content, MAX_CONTENT_CHARS, multiline=True)
        if why is not None:
            check_text("why", why, 2000, multiline=True)
        with state.acting(caller) as store:
            report = supersede(store, old_id, content=content, reason=why,
                               agent=caller.actor, session_id=caller.session_id)
        new = report.created[0] if report.created else "?"
        return f"superseded {old_id} by {new} (batch {report.batch_id})"
