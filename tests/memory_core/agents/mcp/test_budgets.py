"""Each tool's stated token budget holds on the demo store: every tool is run there (a copy:
the tools write) at its defaults and its answer counted with the shipped tokenizer."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from memory_core.agents.mcp import BUDGETS, ToolState, build_server
from memory_core.agents.mcp.event_loop import run_sync
from memory_core.evaluation import load_queries
from memory_core.retrieval.budget import count_tokens
from memory_core.seeding import demo_dir
from memory_core.store import MemoryStore

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture
def demo_copy(demo_store: MemoryStore, tmp_path: Path) -> MemoryStore:
    shutil.copytree(demo_store.uri, tmp_path / "store")
    return MemoryStore.open(str(tmp_path / "store"), embedder=demo_store.embedder,
                            tenant=demo_store.tenant)


def test_every_answer_is_within_the_budget_its_description_states(demo_copy: MemoryStore):
    store = demo_copy
    queries = [q.query for q in load_queries(demo_dir() / "queries.ndjson")]
    memories = store.list()
    linked = sorted(memories, key=lambda m: (-len(store.edges.list(memory_id=m.id)), m.id))[:15]
    longest = sorted(memories, key=lambda m: (-len(m.content), m.id))[:5]
    ids = [m.id for m in linked + longest]
    most: dict[str, int] = {}
    errors: list[str] = []

    async def scenario() -> str:
        server = build_server(ToolState(store))
        async with Client(server) as client:
            descriptions = {t.name: t.description or "" for t in
                            (await client.list_tools()).tools}

            async def run(name: str, **args: Any) -> None:
                result = await client.call_tool(name, args)
                text = "\n".join(getattr(c, "text", "") for c in result.content)
                if result.is_error:
                    errors.append(f"{name}: {text}")
                most[name] = max(most.get(name, 0), count_tokens(text))

            await run("memory_overview")
            for query in queries:
                await run("recall", query=query)
                await run("herd_recall", query=query)
            for memory_id in ids:
                await run("why", id=memory_id)
                await run("related", id=memory_id)
                await run("get_memory", id=memory_id)
            await run("remember", content="Keep MCP answers within their stated budgets",
                      type="lesson", links=[{"to": ids[0], "kind": "supports"}])
            await run("consolidation_candidates")
            await run("remember", content="Budgets hold for every tool the server lists",
                      type="reflection", consolidates=ids[5:8])
            await run("cite", ids=ids[:5], note="an answer")
            await run("correct", id=ids[1], verdict="rejected", kind="superseded",
                      replacement=ids[2], note="it was wrong")
            await run("supersede", old_id=ids[3], content="A replacement memory", why="moved")
            return "\n".join(descriptions.values())

    descriptions = run_sync(scenario)
    assert errors == []
    assert set(most) == set(BUDGETS)
    for name, tokens in most.items():
        assert tokens <= BUDGETS[name].tokens, (name, tokens)
        assert f"answer <= {BUDGETS[name].tokens} tokens]" in descriptions
    # a smaller budget is kept too: whole memories left out, and the answer says so
    small = run_sync(_recall_within, store, queries[0], 450)
    assert count_tokens(small) <= 450 and "left out to stay within max_tokens" in small


async def _recall_within(store: MemoryStore, query: str, max_tokens: int) -> str:
    async with Client(build_server(ToolState(store))) as client:
        result = await client.call_tool("recall", {"query": query, "tier": "standard",
                                                   "max_tokens": max_tokens})
        return "\n".join(getattr(c, "text", "") for c in result.content)
