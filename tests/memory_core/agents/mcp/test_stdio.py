"""`memlens mcp` over stdio, driven by the MCP SDK's client: every tool, its errors, read-only
mode, tenant isolation, session de-duplication, a curation while it runs, concurrent clients."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from memory_core.agents.mcp import BUDGETS, read_tool_names
from memory_core.agents.mcp.event_loop import run_sync
from memory_core.model.filters import Filter
from tests.memory_core.agents.mcp.clients import MEMLENS, call, env, open_store, seed, stdio_session

pytestmark = pytest.mark.slow

CONTENTS = [
    ("We chose LanceDB for the agents' memory store", "decision"),
    ("Mason needs explicit file lists in spawn context", "pattern"),
    ("The memory store keeps one table with metadata filters", "fact"),
]


@pytest.fixture
def two_tenants(tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    """A store with tenant acme (three memories) and tenant globex (one, sharing words)."""
    path = tmp_path / "store"
    acme = seed(path, "acme", CONTENTS)
    globex = seed(path, "globex", [("Globex secret: the memory store is on tape", "fact")])
    return path, acme, globex


def test_every_tool_answers_and_bad_arguments_write_nothing(two_tenants):
    path, acme, _ = two_tenants

    async def scenario() -> dict[str, tuple[bool, str]]:
        out: dict[str, tuple[bool, str]] = {}
        async with stdio_session(path, "--tenant", "acme", name="claude-code") as s:
            listed = await s.list_tools()
            out["names"] = (False, " ".join(t.name for t in listed.tools))
            out["descriptions"] = (False, "\n".join(t.description or "" for t in listed.tools))
            bads: list[dict[str, Any]] = [dict(content="", type="decision"),
                        dict(content="a\x1b[2Jb", type="decision"),
                        dict(content="x" * 16_001, type="decision"),
                        dict(content="fine", type="no-such-type"),
                        dict(content="fine", type="decision", importance="huge"),
                        dict(content="fine", type="decision",
                             links=[{"to": "no-such-id", "kind": "supports"}]),
                        dict(content="fine", type="decision",
                             links=[{"to": acme[0], "kind": "likes"}])]
            for n, bad in enumerate(bads):
                out[f"bad {n}"] = await call(s, "remember", **bad)
            out["overview"] = await call(s, "memory_overview")
            out["recall"] = await call(s, "recall", query="memory store", limit=2)
            out["herd"] = await call(s, "herd_recall", query="spawn context",
                                     project="herd", memory_type="pattern")
            out["remember"] = await call(s, "remember", content="Use uv for installs",
                                         type="preference", tags=["python"],
                                         links=[{"to": acme[0], "kind": "supports"}])
            out["again"] = await call(s, "remember", content="Use  uv for installs ",
                                      type="preference")
            out["cite"] = await call(s, "cite", ids=[acme[0]], note="answer about storage")
            out["cite bad"] = await call(s, "cite", ids=["nope"])
            out["correct"] = await call(s, "correct", id=acme[1], verdict="modified",
                                        note="file lists and globs")
            out["correct bad"] = await call(s, "correct", id=acme[1], kind="superseded")
            out["supersede"] = await call(s, "supersede", old_id=acme[2],
                                          content="The memory store keeps one table per tenant",
                                          why="tenants split")
            out["why"] = await call(s, "why", id=acme[0])
            out["related"] = await call(s, "related", id=acme[0], depth=2)
            out["get"] = await call(s, "get_memory", id=acme[0])
            out["limit 0"] = await call(s, "recall", query="memory", limit=0)
            resource = await s.read_resource(f"memory://{acme[0]}")
            out["resource"] = (False, resource.contents[0].text)  # type: ignore[union-attr]
        return out

    out = run_sync(scenario)
    assert sorted(out["names"][1].split()) == sorted(BUDGETS)
    for name, budget in BUDGETS.items():
        assert f"[L{budget.layer.number} " in out["descriptions"][1]
        assert f"<= {budget.tokens} tokens]" in out["descriptions"][1], name
    bad = {k: v for k, v in out.items() if k.startswith("bad")}
    assert all(is_error and "nothing was written" in text for is_error, text in bad.values())
    texts = [text for _, text in bad.values()]
    assert "content is empty" in texts[0] and "U+001B" in texts[1]
    assert "16,000" in texts[2] and "use one of: session_summary" in texts[3]
    assert "constitutional" in texts[4] and "no memory with id 'no-such-id'" in texts[5]
    assert "supports" in texts[6]
    assert "3 active memories" in out["overview"][1] and "by type:" in out["overview"][1]
    assert not out["recall"][0] and out["recall"][1].startswith("recall ")
    assert acme[1] in out["herd"][1] and acme[0] not in out["herd"][1]
    new_id = out["remember"][1].split()[1]
    assert "linked to 1" in out["remember"][1] and "embedding pending" in out["remember"][1]
    assert out["again"] == (False, f"already remembered as {new_id} (the same content); "
                                   f"nothing was written")
    assert out["cite"] == (False, "cited 1 memory")
    assert out["cite bad"][0] and "nothing was cited" in out["cite bad"][1]
    assert not out["correct"][0] and "correct: changed 1 memory" in out["correct"][1]
    assert out["correct bad"][0] and "replaces" in out["correct bad"][1]
    assert not out["supersede"][0] and out["supersede"][1].startswith(f"superseded {acme[2]} by ")
    assert out["why"][1].startswith(acme[0]) and "led to it" in out["why"][1]
    assert new_id in out["related"][1] and "via supports" in out["related"][1]
    assert f"id: {acme[0]}" in out["get"][1] and "edges: 1" in out["get"][1]
    assert out["limit 0"][0] and "greater than or equal to 1" in out["limit 0"][1]
    assert CONTENTS[0][0] in out["resource"][1]

    store = open_store(path, "acme")
    # 3 seeded + remember + supersede's replacement; nothing from the refused calls
    assert store.count(Filter(status=["active", "superseded"])) == 5
    mine = store.get(new_id)
    assert (mine.agent, mine.memory_type, mine.embedding_status) == (
        "claude-code", "preference", "pending")
    assert store.audit.query(actor="claude-code", action="remember")
    recall_id = out["recall"][1].split()[1].rstrip(":")
    sent = [e for e in store.events.query(kinds=["recall"])
            if e.metadata.get("recall_id") == recall_id]
    assert sorted(e.metadata["rank"] for e in sent) == [1, 2]
    assert all(isinstance(e.metadata["score"], float) for e in sent)
    kinds = {(e.event_kind, e.actor) for e in store.events.query()}
    assert {("cite", "claude-code"), ("correct", "claude-code"),
            ("recall", "claude-code")} <= kinds


def test_read_only_serves_only_the_read_tools(two_tenants):
    path, acme, _ = two_tenants

    async def scenario() -> tuple[list[str], tuple[bool, str], tuple[bool, str]]:
        async with stdio_session(path, "--tenant", "acme", "--read-only") as s:
            names = [t.name for t in (await s.list_tools()).tools]
            return (names, await call(s, "remember", content="x", type="fact"),
                    await call(s, "recall", query="memory store"))

    names, remember, recall = run_sync(scenario)
    assert sorted(names) == sorted(read_tool_names())
    assert remember[0] and "remember" in remember[1]
    assert not recall[0] and recall[1].startswith("recall")
    assert open_store(path, "acme").count() == 3


def test_tenant_a_never_sees_tenant_b_even_given_its_ids(two_tenants):
    path, acme, globex = two_tenants
    other = globex[0]

    async def scenario() -> list[tuple[bool, str]]:
        async with stdio_session(path, "--tenant", "acme") as s:
            return [await call(s, "recall", query="Globex secret memory store tape", limit=10),
                    await call(s, "get_memory", id=other), await call(s, "why", id=other),
                    await call(s, "related", id=other), await call(s, "cite", ids=[other]),
                    await call(s, "correct", id=other, verdict="rejected"),
                    await call(s, "supersede", old_id=other, content="mine now"),
                    await call(s, "remember", content="link", type="fact",
                               links=[{"to": other, "kind": "supports"}])]

    recall, *refused = run_sync(scenario)
    assert "Globex" not in recall[1] and other not in recall[1]
    for is_error, text in refused:
        assert is_error and "no memory with id" in text
        assert "globex" not in text.lower()
    assert open_store(path, "globex").get(other).status == "active"
    assert not open_store(path, "globex").events.query()


def test_recall_deduplicates_within_a_session_not_across_sessions(two_tenants):
    path, _, _ = two_tenants

    async def one_session() -> tuple[str, str]:
        async with stdio_session(path, "--tenant", "acme") as s:
            return ((await call(s, "recall", query="memory store", limit=2))[1],
                    (await call(s, "recall", query="memory store", limit=2))[1])

    first, again = run_sync(one_session)
    later, _ = run_sync(one_session)
    sent = [line.split()[0] for line in first.splitlines()[1:] if not line.startswith(" ")]
    assert len(sent) == 2
    assert "held back as already sent in this session" in again
    assert not any(i in again for i in sent)
    assert all(i in later for i in sent)


def test_an_archive_while_the_server_runs_shows_in_the_next_recall(two_tenants):
    path, acme, _ = two_tenants

    async def scenario() -> tuple[str, str]:
        async with stdio_session(path, "--tenant", "acme") as s:
            first = (await call(s, "recall", query="memory store", limit=1))[1]
            sent = first.splitlines()[1].split()[0]
            left = next(i for i in (acme[0], acme[2]) if i != sent)
            done = subprocess.run([*MEMLENS, "archive", "--store", str(path), "--tenant",
                                   "acme", "--yes", left], env={**env()}, capture_output=True)
            assert done.returncode == 0, done.stderr
            return left, (await call(s, "recall", query="memory store", limit=5))[1]

    archived, after = run_sync(scenario)
    assert archived not in after


def test_concurrent_clients_lose_no_write(two_tenants):
    path, _, _ = two_tenants
    errors: list[str] = []

    async def writer() -> None:
        async with stdio_session(path, "--tenant", "acme", name="writer") as s:
            for n in range(8):
                is_error, text = await call(s, "remember", content=f"lesson number {n}",
                                            type="lesson")
                if is_error:
                    errors.append(text)

    async def reader(name: str) -> None:
        async with stdio_session(path, "--tenant", "acme", name=name) as s:
            for _ in range(6):
                is_error, text = await call(s, "recall", query="lesson memory store")
                if is_error:
                    errors.append(text)

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(writer)
            group.start_soon(reader, "reader-1")
            group.start_soon(reader, "reader-2")

    run_sync(scenario)
    assert errors == []
    assert open_store(path, "acme").count(Filter(memory_type="lesson")) == 8
