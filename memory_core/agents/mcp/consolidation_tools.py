"""L4 `consolidation_candidates`: groups of related memories no reflection consolidates yet,
for the agent's own model to synthesise, so memlens needs no LLM of its own.

Each candidate is a few lines: its id, strength, cohesion, size, time span and terms, its
members (id, type, first line) and the rule-based draft. The agent writes the reflection in
its own words and records it with `remember(type="reflection", consolidates=[member ids])`
(`memory_core.agents.mcp.remember.remember_reflection`), served unless read-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from memory_core.agents.mcp.budgets import described
from memory_core.agents.mcp.read_tools import LINE_CHARS, first_line
from memory_core.agents.mcp.session import ToolState
from memory_core.model.filters import Filter

if TYPE_CHECKING:
    from memory_core.store import MemoryStore

#: Candidates listed by default, and at most; members listed per candidate before "+N more";
#: characters of a draft shown.
DEFAULT_CANDIDATES = 3
MAX_CANDIDATES = 10
MEMBER_LINES = 6
DRAFT_CHARS = 400

TEXT = (
    "Groups of related observations, events and learnings that no reflection consolidates "
    "yet, strongest first (strength = cohesion x n/(n+2)), each with its members and a "
    "rule-based draft. To consolidate one, write the reflection in your own words from "
    "the members (get_memory reads one in full) and call remember with type=\"reflection\" "
    "and consolidates=[the member ids]: memlens records it with method llm_synthesis and "
    "your client's name as the model, linked to each member.")


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def candidates_text(store: MemoryStore, limit: int = DEFAULT_CANDIDATES,
                    project: str | None = None) -> str:
    """The strongest `limit` candidates (of `project` when given) as a few lines each."""
    from memory_core.consolidation import consolidation_candidates

    found = consolidation_candidates(store, Filter(project=project) if project else None)
    if not found:
        return ("consolidation candidates: none (every group of related observations is "
                "consolidated already, or too small)")
    shown = found[:limit]
    lines = [f"consolidation candidates: {len(found)}, strongest first"
             + (f" (the first {len(shown)})" if len(shown) < len(found) else "")]
    members = store.get_many(sorted({m for c in shown for m in c.members}))
    for n, c in enumerate(shown, 1):
        span = f"{c.start:%Y-%m-%d}" + (f"..{c.end:%Y-%m-%d}"
                                        if c.end.date() != c.start.date() else "")
        where = f", project {', '.join(c.projects)}" if c.projects else ""
        lines.append(f"{n}. candidate {c.id}: strength {c.strength:.2f}, cohesion "
                     f"{c.cohesion:.2f}, {len(c.members)} memories, {span}{where}")
        if c.terms:
            lines.append(f"   terms: {_cut(', '.join(c.terms[:8]), LINE_CHARS)}")
        for member in c.members[:MEMBER_LINES]:
            lines.append(f"   - {first_line(members.get(member), member)}")
        if len(c.members) > MEMBER_LINES:
            lines.append(f"   +{len(c.members) - MEMBER_LINES} more: "
                         + ", ".join(c.members[MEMBER_LINES:]))
        lines.append(f"   draft: {_cut(c.draft, DRAFT_CHARS)}")
    return "\n".join(lines)


def register(server: MCPServer[Any], state: ToolState) -> None:
    """Add `consolidation_candidates` (a read) to `server`."""
    read = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)

    @server.tool(name="consolidation_candidates", annotations=read, structured_output=False,
                 description=described("consolidation_candidates", TEXT))
    def consolidation_candidates(
        ctx: Context[Any, Any],
        limit: Annotated[int, Field(ge=1, le=MAX_CANDIDATES, description=(
            f"How many candidates at most (1-{MAX_CANDIDATES})."))] = DEFAULT_CANDIDATES,
        project: Annotated[str | None, Field(max_length=200, description=(
            "Only memories of this project."))] = None,
    ) -> str:
        with state.acting(state.caller(ctx)) as store:
            return candidates_text(store, limit, project)
