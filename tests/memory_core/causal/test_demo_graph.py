"""The explorer on the demo corpus (fake vectors: the graph is what matters): its storylines
have observations leading to decisions, superseded decisions with successors, and
contradicting preferences; its graph has no dangling edge or self loop."""

from __future__ import annotations

import pytest

from memory_core.causal import contradictions, graph_health, lineage, supersession_chain
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.seeding import seed_from_export
from memory_core.store import MemoryStore


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> MemoryStore:
    from tests.conftest import FakeEmbedder

    store = MemoryStore.open(str(tmp_path_factory.mktemp("demo") / "store"),
                             embedder=FakeEmbedder())
    seed_from_export(store)
    return store


@pytest.mark.slow
def test_demo_decisions_have_observations_among_their_causes(demo: MemoryStore) -> None:
    decisions = demo.list(Filter(memory_type="decision"), limit=60)
    traced = 0
    for decision in decisions:
        causes = lineage(demo, decision.id, depth=3).ancestors
        kinds = {m.memory_type for m in demo.get_many([p.memory_id for p in causes]).values()}
        traced += "observation" in kinds
        for path in causes:  # every step leads towards the decision
            assert path.steps[0].effect_id == decision.id
            assert path.steps[-1].cause_id == path.memory_id
    assert traced >= len(decisions) // 2


@pytest.mark.slow
def test_demo_supersession_and_contradictions(demo: MemoryStore) -> None:
    superseded = demo.list(Filter(status="superseded"), limit=40)
    assert superseded
    for memory in superseded:
        chain = supersession_chain(demo, memory.id)
        assert memory.id in chain.chain and chain.current != memory.id
        assert demo.get(chain.current).status != "superseded" or chain.forks or chain.cycle
    pairs = contradictions(demo)
    assert pairs and pairs[0].both_active
    assert any(demo.get(p.a.memory_id).memory_type == "preference" for p in pairs)


@pytest.mark.slow
def test_demo_graph_health(demo: MemoryStore) -> None:
    health = graph_health(demo)
    assert health.memories == demo.count(Filter(status=STATUSES))
    assert health.finding("dangling_edges").count == 0
    assert health.finding("self_loops").count == 0
    assert 0 < health.finding("orphans").count < health.memories
