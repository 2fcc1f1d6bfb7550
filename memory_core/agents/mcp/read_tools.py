"""The read tools: L1 `memory_overview`, L4 `why` and `related`, L5 `get_memory`, and the
`memory://{id}` resource. Every answer is a few short lines of plain text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp_types import ToolAnnotations
from pydantic import Field

from memory_core.agents.mcp.budgets import described
from memory_core.agents.mcp.overview import overview_text
from memory_core.agents.mcp.session import ToolState
from memory_core.model.errors import MemoryNotFoundError
from memory_core.model.records import Memory
from memory_core.retrieval.tiers import SHOWN_CHARS, cut_content

#: Memories `why` lists on each side, and nodes `related` lists, before "+N more".
WHY_LINES = 6
RELATED_NODES = 12
#: Characters of a memory's first line in a listing.
LINE_CHARS = 100

MemoryId = Annotated[str, Field(min_length=1, max_length=200,
                                description="A memory id, as recall returns them.")]


def first_line(memory: Memory | None, memory_id: str) -> str:
    """`id [type] first line` (a status other than active named); a missing id says so."""
    if memory is None:
        return f"{memory_id} (not found)"
    lines = memory.content.strip().splitlines()
    text = lines[0] if lines else ""
    text = text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"
    status = "" if memory.status == "active" else f" ({memory.status})"
    return f"{memory.id} [{memory.memory_type}]{status} {text}"


def _more(shown: int, total: int, hint: str) -> list[str]:
    return [f"  +{total - shown} more ({hint})"] if total > shown else []


def why_text(store: Any, memory_id: str) -> str:
    """Lineage in a few lines: what led to the memory, what it led to, what replaced it and
    what contradicts it."""
    from memory_core.causal import CAUSAL, contradictions, lineage, supersession_chain
    from memory_core.model.filters import Filter
    from memory_core.model.schema import STATUSES

    found = lineage(store, memory_id, depth=3, relations=tuple(CAUSAL))
    chain = supersession_chain(store, memory_id)
    ids = {memory_id, *chain.chain, *(p.memory_id for p in found.ancestors),
           *(p.memory_id for p in found.descendants)}
    rows = store.get_many(sorted(ids))
    lines = [first_line(rows.get(memory_id), memory_id)]
    for label, paths in (("led to it", found.ancestors), ("it led to", found.descendants)):
        lines.append(f"{label}: {len(paths) or 'nothing recorded'}")
        for path in paths[:WHY_LINES]:
            relation = path.steps[-1].relation if path.steps else "?"
            reached = first_line(rows.get(path.memory_id), path.memory_id)
            lines.append(f"  {path.hops} hop{'s' if path.hops > 1 else ''}, {relation} "
                         f"{path.strength:.2f}: {reached}")
        lines += _more(min(len(paths), WHY_LINES), len(paths), "related lists the links")
    if len(chain.chain) > 1:
        lines.append("supersession (oldest -> current): " + " -> ".join(chain.chain))
    if any(e.relation == "contradicts" for e in store.edges.list(memory_id=memory_id)):
        pairs = contradictions(store, Filter(ids=[memory_id], status=STATUSES))
        others = [c.b.memory_id if c.a.memory_id == memory_id else c.a.memory_id
                  for c in pairs if memory_id in (c.a.memory_id, c.b.memory_id)]
        if others:
            lines.append("contradicted by: " + ", ".join(others[:WHY_LINES])
                         + (f" (+{len(others) - WHY_LINES} more)" if len(others) > WHY_LINES
                            else ""))
    return "\n".join(lines)


def related_text(store: Any, memory_id: str, depth: int) -> str:
    """The neighbourhood of a memory as a short list: each memory, how far, and the
    strongest link that reached it."""
    from memory_core.causal import neighbourhood

    near = neighbourhood(store, memory_id, hops=depth, limit=RELATED_NODES + 1)
    others = [n for n in near.nodes if not n.focus]
    focus = store.get(memory_id)
    lines = [first_line(focus, memory_id),
             f"related within {depth} hop{'s' if depth > 1 else ''}: {len(others) + near.left_out}"]
    for node in others:
        links = [e for e in near.edges if node.id in (e.source_id, e.target_id)]
        best = max(links, key=lambda e: e.decayed_strength, default=None)
        how = "" if best is None else f"via {best.relation} {best.decayed_strength:.2f}, "
        text = node.content.strip().splitlines()[0] if node.content.strip() else ""
        text = text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"
        status = "" if node.status == "active" else f" ({node.status})"
        hops = f"{node.hops} hop{'s' if node.hops > 1 else ''}"
        lines.append(f"  {hops}, {how}{node.id} [{node.memory_type}]{status} {text}")
    if near.left_out:
        lines.append(f"  +{near.left_out} more (call related on one of these)")
    return "\n".join(lines)


def _fields(memory: Memory) -> Mapping[str, Any]:
    from memory_core.model.canonical import memory_doc

    doc = memory_doc(memory)
    doc.pop("kind", None)
    return doc


def memory_text(store: Any, memory_id: str) -> str:
    """The full record (content cut at `SHOWN_CHARS`, saying so) with its edges."""
    memory = store.get(memory_id)
    lines = []
    for name, value in _fields(memory).items():
        if value in (None, "", [], {}) or name == "content":
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{name}: {shown}")
    content, total = cut_content(memory.content)
    lines.append("content:" if not total else
                 f"content (the first {SHOWN_CHARS:,} of {total:,} characters; read the "
                 f"resource memory://{memory.id} for all):")
    lines.append(content)
    edges = store.edges.list(memory_id=memory_id)
    lines.append(f"edges: {len(edges) or 'none'}")
    for edge in edges[:20]:
        lines.append(f"  {edge.source_id} -{edge.relation} {edge.strength:.2f}-> "
                     f"{edge.target_id}")
    lines += _more(min(len(edges), 20), len(edges), "related lists the neighbourhood")
    return "\n".join(lines)


def memory_json(store: Any, memory_id: str) -> str:
    """The whole memory and its edges as JSON (the `memory://{id}` resource)."""
    from memory_core.model.canonical import edge_doc

    memory = store.get(memory_id)
    return json.dumps({"memory": dict(_fields(memory)),
                       "edges": [edge_doc(e) for e in store.edges.list(memory_id=memory_id)]},
                      ensure_ascii=False, default=str)


def register(server: MCPServer[Any], state: ToolState) -> None:
    """Add the read tools and the memory resource to `server`."""
    read = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)

    @server.tool(name="memory_overview", annotations=read, structured_output=False,
                 description=described("memory_overview", (
                     "What this memory holds: counts by type, project and agent, the "
                     "newest sessions, and how many contradictions and pending embeddings "
                     "are open. Call it first in a session.")))
    def memory_overview(ctx: Context[Any, Any]) -> str:
        with state.acting(state.caller(ctx)) as store:
            return overview_text(store)

    @server.tool(name="why", annotations=read, structured_output=False,
                 description=described("why", (
                     "Why a memory is believed: what led to it and what it led to (causal "
                     "links with their decayed strength), what superseded it, and what "
                     "contradicts it, in a few lines.")))
    def why(id: MemoryId, ctx: Context[Any, Any]) -> str:
        with state.acting(state.caller(ctx)) as store:
            return why_text(store, id)

    @server.tool(name="related", annotations=read, structured_output=False,
                 description=described("related", (
                     f"The memories linked to a memory within `depth` hops (1-3), nearest "
                     f"and strongest first, at most {RELATED_NODES}, with the link that "
                     f"reached each.")))
    def related(id: MemoryId, ctx: Context[Any, Any],
                depth: Annotated[int, Field(ge=1, le=3, description="Hops, 1-3.")] = 1
                ) -> str:
        with state.acting(state.caller(ctx)) as store:
            return related_text(store, id, depth)

    @server.tool(name="get_memory", annotations=read, structured_output=False,
                 description=described("get_memory", (
                     f"One memory in full: every field and its edges (content up to "
                     f"{SHOWN_CHARS:,} characters; the resource memory://{{id}} has all "
                     f"of it).")))
    def get_memory(id: MemoryId, ctx: Context[Any, Any]) -> str:
        with state.acting(state.caller(ctx)) as store:
            return memory_text(store, id)

    @server.resource("memory://{memory_id}", name="memory", mime_type="application/json",
                     description="A memory of this store and its edges, as JSON.")
    def memory_resource(memory_id: str) -> str:
        try:
            with state.reading() as store:
                return memory_json(store, memory_id)
        except MemoryNotFoundError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
