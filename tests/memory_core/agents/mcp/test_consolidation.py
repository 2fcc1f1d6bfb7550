"""Consolidation through MCP over stdio: `consolidation_candidates` is a read tool (served
read-only too), and `remember(type="reflection", consolidates=[...])` records the agent's
reflection as one undoable `consolidate` batch with method llm_synthesis and the client's
name/version as the model; what cannot be a reflection is refused and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.agents.mcp.event_loop import run_sync
from memory_core.curation import undo
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.memory_core.agents.mcp.clients import call, open_store, seed, stdio_session

pytestmark = pytest.mark.slow

OBSERVATIONS = [
    ("The nightly build failed: the artifact cache was cold", "observation"),
    ("A cold artifact cache broke the release build again", "observation"),
    ("The build server disk filled up during the release", "observation"),
]


@pytest.fixture
def observed(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "store"
    return path, seed(path, "acme", OBSERVATIONS)


def test_remember_a_reflection_records_it_as_a_consolidation(observed) -> None:
    path, ids = observed

    async def scenario() -> dict[str, tuple[bool, str]]:
        out: dict[str, tuple[bool, str]] = {}
        async with stdio_session(path, "--tenant", "acme", name="claude-code") as s:
            names = [t.name for t in (await s.list_tools()).tools]
            out["names"] = (False, " ".join(names))
            out["candidates"] = await call(s, "consolidation_candidates")
            for key, args in {
                "not a reflection": dict(type="lesson", consolidates=ids[:2]),
                "one source": dict(type="reflection", consolidates=ids[:1]),
                "unknown source": dict(type="reflection", consolidates=[ids[0], "nope"]),
                "with links": dict(type="reflection", consolidates=ids[:2],
                                   links=[{"to": ids[2], "kind": "supports"}]),
            }.items():
                out[key] = await call(s, "remember", content="cold caches break builds",
                                      **args)
            out["reflection"] = await call(
                s, "remember", type="reflection", consolidates=ids[:2],
                content="Cold artifact caches break builds", why="seen twice",
                tags=["builds"])
            out["again"] = await call(s, "remember", type="reflection", consolidates=ids[1:],
                                      content="Cold artifact caches break builds")
        return out

    out = run_sync(scenario)
    assert "consolidation_candidates" in out["names"][1].split()
    assert not out["candidates"][0]
    assert out["candidates"][1].startswith("consolidation candidates: ")
    refused = {k: v for k, v in out.items() if k in (
        "not a reflection", "one source", "unknown source", "with links", "again")}
    assert all(is_error for is_error, _ in refused.values()), refused
    assert "consolidates goes with type \"reflection\", not 'lesson'" in \
        out["not a reflection"][1]
    assert "at least 2 memories; 1 was given" in out["one source"][1]
    assert "no memory with id 'nope'" in out["unknown source"][1]
    assert "links do not go with consolidates" in out["with links"][1]
    assert "already holds this content" in out["again"][1]
    assert all("nothing was" in text for _, text in refused.values())
    is_error, text = out["reflection"]
    assert not is_error and text.startswith("remembered ")
    assert "reflection of 2 memories" in text and "linked to each" in text

    store = open_store(path, "acme")
    (reflection,) = store.list(Filter(memory_type="reflection"), limit=None)
    assert text.split()[1] == reflection.id
    assert (reflection.agent, reflection.why, reflection.tags) == (
        "claude-code", "seen twice", ("builds",))
    meta = reflection.metadata
    assert (meta["method"], meta["model"], meta["source_count"]) == (
        "llm_synthesis", "claude-code/1", 2)
    assert [s["id"] for s in meta["sources"]] == ids[:2]
    # the server embeds nothing here (embedding off): no vectors, no strength to claim
    assert meta["strength"] is None and "strength unknown" in text
    assert sorted(e.target_id for e in store.edges.list(memory_id=reflection.id)
                  if e.relation == "derived_from") == sorted(ids[:2])
    (batch,) = store.audit.query(action="consolidate", limit=1)
    assert batch.actor == "claude-code"
    undo(store, str(batch.batch_id))
    assert store.count(Filter(memory_type="reflection", status=STATUSES)) == 0


def test_read_only_lists_the_candidates_but_not_the_write(observed) -> None:
    path, ids = observed

    async def scenario() -> tuple[list[str], tuple[bool, str], tuple[bool, str]]:
        async with stdio_session(path, "--tenant", "acme", "--read-only") as s:
            names = [t.name for t in (await s.list_tools()).tools]
            return (names, await call(s, "consolidation_candidates", limit=2),
                    await call(s, "remember", type="reflection", consolidates=ids[:2],
                               content="cold caches break builds"))

    names, candidates, remember = run_sync(scenario)
    assert "consolidation_candidates" in names and "remember" not in names
    assert not candidates[0]
    assert remember[0] and "remember" in remember[1]
    assert open_store(path, "acme").count(Filter(memory_type="reflection")) == 0


def test_the_agent_consolidates_a_listed_candidate_and_it_is_no_longer_listed(
        store: MemoryStore) -> None:
    """In process, with vectors (the fake embedder): the candidate's members and draft are
    listed; the reflection written from them carries the candidate's strength, and the
    candidate is not proposed again."""
    from mcp.client import Client

    from memory_core.agents.mcp import ToolState, build_server
    from memory_core.consolidation import consolidation_candidates

    texts = ["the nightly build failed because the artifact cache was cold",
             "the release build failed because the artifact cache was cold again",
             "a cold artifact cache made the nightly build fail",
             "lunch menus changed on friday", "the friday lunch menu changed again",
             "friday lunch menu is new"]
    store.add([Memory.new(t, "observation", project="herd") for t in texts])
    found = consolidation_candidates(store)
    assert len(found) >= 2  # the build group and the lunch group
    first, second = found[0], found[1]

    async def scenario() -> tuple[str, str, str]:
        async with Client(build_server(ToolState(store))) as client:
            async def text(name: str, **args: object) -> str:
                result = await client.call_tool(name, args)
                assert not result.is_error, result
                return "\n".join(getattr(c, "text", "") for c in result.content)

            listed = await text("consolidation_candidates", limit=1)
            written = await text("remember", type="reflection",
                                 consolidates=list(first.members),
                                 content="Cold artifact caches fail builds")
            return listed, written, await text("consolidation_candidates")

    listed, written, after = run_sync(scenario)
    assert listed.splitlines()[0] == (f"consolidation candidates: {len(found)}, strongest "
                                      f"first (the first 1)")
    assert f"1. candidate {first.id}: strength {first.strength:.2f}" in listed
    assert all(m in listed for m in first.members) and f"draft: {first.draft}" in listed
    assert second.id not in listed
    assert f"strength {first.strength:.2f}" in written
    (reflection,) = store.list(Filter(memory_type="reflection"), limit=None)
    assert reflection.metadata["strength"] == pytest.approx(first.strength, abs=1e-6)
    assert reflection.metadata["method"] == "llm_synthesis" and reflection.metadata["model"]
    assert first.id not in after and f"1. candidate {second.id}" in after
