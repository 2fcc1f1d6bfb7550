"""L2 `recall` and `herd_recall`: `recall()` through MCP, de-duplicated per MCP session.

The answer is a header line (the recall id that `memlens replay` takes, how many memories,
what was held back) and each memory as recall renders it, prefixed by its id so the agent
can cite it. Recall is given the budget left once the header and the ids are reserved, so
the whole answer never exceeds `max_tokens`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from memory_core.agents.mcp.budgets import RECALL_MAX_TOKENS, described
from memory_core.agents.mcp.session import ToolState
from memory_core.model.filters import Filter
from memory_core.retrieval.budget import count_tokens
from memory_core.retrieval.recall import RecallResult, recall
from memory_core.retrieval.tiers import render_text

#: Tokens kept for the header line, and for each memory's id in front of it (a uuid4 is at
#: most 37 tokens for the shipped tokenizer).
HEADER_TOKENS = 100
ID_TOKENS = 38
#: Characters of a degraded search's reasons kept in the header.
REASON_CHARS = 160

Tier = Literal["minimal", "compact", "standard", "full"]
Limit = Annotated[int, Field(ge=1, le=50, description="How many memories at most (1-50).")]
MaxTokens = Annotated[int, Field(ge=100, le=50_000, description=(
    "Never answer with more tokens than this: whole memories are left out, lowest ranked "
    "first, and the answer says how many."))]
Query = Annotated[str, Field(min_length=1, max_length=2000,
                             description="What to recall, in natural language.")]
TierArg = Annotated[Tier, Field(description=(
    "minimal: id, type, first line; compact: plus project, agent, tags, 200 characters; "
    "standard: the content up to 2,000 characters and why; full: every field."))]

RECALL_TEXT = (
    "Search this memory for what is relevant to `query` (hybrid vector + keyword search, "
    "ranked with decay). Memories already sent in this MCP session are not sent again "
    "(30 min, 100 entries). Optional filters: type, tags (any of them), project, agent, "
    "since (ISO date: created on or after). Each memory comes with its id: pass ids to "
    "cite when your answer used them, to get_memory for one in full, to why/related for "
    "its links.")
HERD_TEXT = (
    "herd's recall: the same search as recall with herd's metadata filters: "
    "project, repo, agent, session_id and memory_type (session_summary, decision_context, "
    "pattern, preference, thread, or any other type).")


def _header(result: RecallResult, shown: int) -> str:
    if not shown:
        head = "recall: nothing to recall for this query"
    else:
        head = (f"recall {result.recall_id}: {shown} memor{'y' if shown == 1 else 'ies'} "
                f"({result.tier} tier)")
    notes = []
    if result.skipped_as_sent:
        notes.append(f"{len(result.skipped_as_sent)} held back as already sent in this "
                     f"session")
    if result.dropped_for_budget:
        notes.append(f"{result.dropped_for_budget} left out to stay within max_tokens")
    if shown and not result.session_recorded:
        notes.append("the store is read-only, so this session may be sent them again")
    if result.degraded:
        reasons = "; ".join(result.reasons)[:REASON_CHARS]
        notes.append(f"degraded search ({reasons})")
    return "; ".join([head, *notes])


def answer(result: RecallResult) -> str:
    """The text the recall tools send."""
    lines = [_header(result, len(result.items))]
    lines += [f"{item['id']} {render_text(item)}" for item in result.items]
    return "\n".join(lines)


def run_recall(state: ToolState, ctx: Context[Any, Any], query: str, limit: int,
               scope: Filter, tier: str, max_tokens: int, record_type: str | None = None
               ) -> str:
    """Recall for the caller of `ctx` within `max_tokens` tokens of answer."""
    if not query.strip():
        raise ToolError("query is empty; say what to recall")
    inner = max_tokens - HEADER_TOKENS - ID_TOKENS * limit
    if inner < 1:
        raise ToolError(f"max_tokens {max_tokens} leaves no room for {limit} memories; give "
                        f"at least {HEADER_TOKENS + (ID_TOKENS + 50) * limit} or a smaller "
                        f"limit")
    caller = state.caller(ctx)
    with state.acting(caller) as store:
        result = recall(store, query, limit, record_type, tier=tier,
                        session_id=caller.session_id, scope=scope, max_tokens=inner,
                        actor=caller.actor)
    text = answer(result)
    if count_tokens(text) > max_tokens:  # the reserves are upper bounds: never reached
        raise ToolError(f"the answer came to more than max_tokens {max_tokens}; give a "
                        f"larger max_tokens or a smaller limit")
    return text


def register(server: MCPServer[Any], state: ToolState) -> None:
    """Add `recall` and `herd_recall` to `server`."""
    read = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)

    @server.tool(name="recall", description=described("recall", RECALL_TEXT),
                 annotations=read, structured_output=False)
    def recall_tool(
        query: Query, ctx: Context[Any, Any], limit: Limit = 5,
        type: Annotated[str | None, Field(description="Only this memory type.")] = None,
        tags: Annotated[list[str] | None, Field(max_length=20,
                                                description="Has any of these tags.")] = None,
        project: Annotated[str | None, Field(description="Only this project.")] = None,
        agent: Annotated[str | None, Field(description="Only memories this agent wrote.")
                         ] = None,
        since: Annotated[str | None, Field(description="Created on or after (ISO date).")
                         ] = None,
        tier: TierArg = "compact", max_tokens: MaxTokens = RECALL_MAX_TOKENS,
    ) -> str:
        scope = Filter(tags=tags, project=project, agent=agent, created_after=since)
        return run_recall(state, ctx, query, limit, scope, tier, max_tokens, type)

    @server.tool(name="herd_recall", description=described("herd_recall", HERD_TEXT),
                 annotations=read, structured_output=False)
    def herd_recall(
        query: Query, ctx: Context[Any, Any], limit: Limit = 5,
        project: Annotated[str | None, Field(description="e.g. herd")] = None,
        repo: Annotated[str | None, Field(description="e.g. herd-core")] = None,
        agent: Annotated[str | None, Field(description="e.g. steve")] = None,
        session_id: Annotated[str | None, Field(description="e.g. steve-2026-02-15")] = None,
        memory_type: Annotated[str | None, Field(description="e.g. decision_context")] = None,
        tier: TierArg = "compact", max_tokens: MaxTokens = RECALL_MAX_TOKENS,
    ) -> str:
        scope = Filter(project=project, repo=repo, agent=agent, session_id=session_id)
        return run_recall(state, ctx, query, limit, scope, tier, max_tokens, memory_type)
