"""The explorer on small hand-built graphs with known answers: lineage with paths and
cycles, supersession chains with forks, contradictions, neighbourhoods, graph health, and
link/unlink refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import networkx as nx
import pytest

from memory_core.causal import (
    contradictions,
    graph_health,
    lineage,
    link,
    neighbourhood,
    supersession_chain,
    unlink,
    write_graph,
)
from memory_core.curation import archive, undo
from memory_core.model.errors import GraphError, MemoryNotFoundError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _store(store: MemoryStore, names: str, edges: list[tuple[str, str, str]],
           **fields: dict) -> MemoryStore:
    memories = [Memory.new(f"memory {n}: about {n}", "decision", id=n,
                           created_at=T0 + timedelta(days=i), **fields.get(n, {}))
                for i, n in enumerate(names)]
    store.add(memories)
    store.edges.add([Edge.new(a, b, r, id=f"{a}-{r}-{b}", created_at=T0) for a, r, b in edges])
    return store


@pytest.fixture
def story(store: MemoryStore) -> MemoryStore:
    # o1 caused d1; d1 enabled d2; r1 derived_from o1; d2 supports d3; d3 caused o1 (a cycle)
    return _store(store, ["o1", "d1", "d2", "d3", "r1", "x"], [
        ("o1", "caused", "d1"), ("d1", "enabled", "d2"), ("r1", "derived_from", "o1"),
        ("d2", "supports", "d3"), ("d3", "caused", "o1"), ("x", "relates_to", "d1")])


def test_lineage_ancestors_descendants_paths_and_cycles(story: MemoryStore) -> None:
    found = lineage(story, "d2", depth=3)
    assert [(p.memory_id, p.hops) for p in found.ancestors] == [("d1", 1), ("o1", 2),
                                                                ("d3", 3)]
    assert [(p.memory_id, p.hops) for p in found.descendants] == [("d3", 1), ("o1", 2),
                                                                  ("d1", 3), ("r1", 3)]
    (via,) = [p for p in found.ancestors if p.memory_id == "o1"]
    assert [(s.cause_id, s.relation, s.effect_id) for s in via.steps] == [
        ("d1", "enabled", "d2"), ("o1", "caused", "d1")]
    # r1 derived_from o1: o1 led to r1, so r1 is downstream of o1, never its cause
    assert "r1" not in [p.memory_id for p in lineage(story, "o1").ancestors]
    assert found.cycles == ()  # the way back to d2 is a fourth hop
    (cycle,) = lineage(story, "d2", depth=4).cycles
    assert cycle[0] == cycle[-1] and set(cycle) == {"d1", "d2", "d3", "o1"}
    assert "x" not in [p.memory_id for p in found.ancestors + found.descendants]


def test_lineage_depth_relations_and_decay(story: MemoryStore) -> None:
    one = lineage(story, "d2", depth=1, relations=["enabled"])
    assert [p.memory_id for p in one.ancestors] == ["d1"] and one.descendants == ()
    later = lineage(story, "d2", depth=1, as_of=T0 + timedelta(days=400))
    assert later.ancestors[0].strength == pytest.approx(1.0)  # decay_rate 0: no decay
    with pytest.raises(GraphError, match="not a causal relation"):
        lineage(story, "d2", relations=["relates_to"])
    with pytest.raises(GraphError, match="depth must be"):
        lineage(story, "d2", depth=0)
    with pytest.raises(MemoryNotFoundError):
        lineage(story, "nope")


def test_supersession_chain_from_any_member_with_a_fork(store: MemoryStore) -> None:
    _store(store, ["v1", "v2", "v3", "v3b", "v4"], [
        ("v2", "supersedes", "v1"), ("v3", "supersedes", "v2"), ("v3b", "supersedes", "v2"),
        ("v4", "supersedes", "v3b")])
    for start in ("v1", "v2", "v4"):
        chain = supersession_chain(store, start)
        assert chain.chain == ("v1", "v2", "v3b", "v4") and chain.current == "v4"
        assert [(f.memory_id, f.successors) for f in chain.forks] == [("v2", ("v3", "v3b"))]
    assert supersession_chain(store, "v3").chain[-1] == "v4"  # v3's chain goes on via the fork


def test_contradictions_queue_puts_active_pairs_first(store: MemoryStore) -> None:
    _store(store, ["a", "b", "c", "d"], [("a", "contradicts", "b"), ("c", "contradicts", "d")],
           a={"confidence": 0.9}, b={"confidence": 0.4})
    archive(store, ["c"])
    pairs = contradictions(store, as_of=T0 + timedelta(days=10))
    assert [(p.a.memory_id, p.b.memory_id, p.both_active) for p in pairs] == [
        ("a", "b", True), ("c", "d", False)]
    assert pairs[0].newer == "b" and pairs[0].a.status == "active"
    assert pairs[1].a.status == "archived"
    assert [p.edge_id for p in contradictions(store, Filter(ids=["d"]))] == ["c-contradicts-d"]


def test_neighbourhood_hops_filters_cap_and_networkx(story: MemoryStore) -> None:
    one = neighbourhood(story, "d1", hops=1)
    assert {n.id for n in one.nodes} == {"d1", "o1", "d2", "x"}
    assert [n.id for n in one.nodes if n.focus] == ["d1"]
    two = neighbourhood(story, "d1", hops=2)
    assert {n.id for n in two.nodes} == {"d1", "o1", "d2", "x", "r1", "d3"}
    only = neighbourhood(story, "d1", hops=2, relations=["caused"])
    assert {n.id for n in only.nodes} == {"d1", "o1", "d3"}
    capped = neighbourhood(story, "d1", hops=2, limit=3)
    assert len(capped.nodes) == 3 and capped.left_out == 3 and "strongest" in capped.rule
    archive(story, ["x"])
    assert "x" not in {n.id for n in neighbourhood(story, "d1").nodes}
    assert "x" in {n.id for n in neighbourhood(story, "d1", include_inactive=True).nodes}
    graph = two.to_networkx()
    assert isinstance(graph, nx.MultiDiGraph) and graph.has_edge("o1", "d1")
    assert graph.nodes["d1"]["memory_type"] == "decision"


def test_graph_health_finds_each_kind(store: MemoryStore) -> None:
    _store(store, ["a", "b", "c", "lonely", "old", "gone"], [
        ("a", "caused", "b"), ("b", "caused", "a"), ("a", "caused", "c"),
        ("c", "relates_to", "old")])
    store.edges.add([Edge.new("a", "c", "caused", id="dup", created_at=T0 + timedelta(1)),
                     Edge.new("a", "ghost", "caused", id="dangling")], check_endpoints=False)
    archive(store, ["old"])
    from memory_core.curation import edit  # superseded without a successor: by status only

    store.upsert([store.get("gone").with_changes(status="superseded")])
    edit(store, "lonely", why="still alone")
    health = graph_health(store)
    got = {f.kind: set(f.ids) for f in health.findings}
    assert got["orphans"] == {"lonely"}
    assert health.finding("orphans").detail["by_type"] == {"decision": 1}
    assert got["dangling_edges"] == {"dangling"}
    assert got["edges_to_inactive"] == {"c-relates_to-old"}
    assert got["causal_cycles"] == {"a", "b"}
    assert got["duplicate_edges"] == {"dup"}
    assert got["superseded_without_successor"] == {"gone"}
    assert got["self_loops"] == set()


def test_other_tenants_edges_are_invisible(story: MemoryStore, store_path: str) -> None:
    other = MemoryStore.open(store_path, embedder=FakeEmbedder(), tenant="other")
    _store(other, ["p", "q"], [("p", "caused", "q")])
    assert "p" not in {n.id for n in neighbourhood(story, "d1", hops=3).nodes}
    with pytest.raises(MemoryNotFoundError):
        lineage(story, "p")
    with pytest.raises(MemoryNotFoundError):
        link(story, "d1", "caused", "p")


def test_link_and_unlink_are_audited_undoable_and_refuse_bad_input(story: MemoryStore) -> None:
    report = link(story, "x", "caused", "d3", strength=0.5, evidence=["ticket 7"])
    (added,) = [e for e in story.edges.list(memory_id="x") if e.relation == "caused"]
    assert (added.strength, added.evidence) == (0.5, ("ticket 7",))
    assert report.edges[0].change == "added"
    undo(story, report.batch_id)
    assert [e.relation for e in story.edges.list(memory_id="x")] == ["relates_to"]
    versions = story.table_versions()
    for call, message in [
        (lambda: link(story, "x", "caused", "x"), "to itself"),
        (lambda: link(story, "x", "befriends", "d1"), "relation"),
        (lambda: link(story, "o1", "caused", "d1"), "exists already"),
        (lambda: link(story, "x", "caused", "d1", strength=3.0), "strength"),
        (lambda: unlink(story, "no-edge"), "no edge with id"),
    ]:
        with pytest.raises(GraphError, match=message):
            call()
    assert story.table_versions() == versions
    gone = unlink(story, "o1-caused-d1", reason="wrong")
    assert "o1-caused-d1" not in {e.id for e in story.edges.list()}
    undo(story, gone.batch_id)
    assert "o1-caused-d1" in {e.id for e in story.edges.list()}


def test_write_graph_graphml_and_json(story: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "graph.graphml"
    assert write_graph(story, path) == 6
    graph = nx.read_graphml(path)
    assert graph.number_of_nodes() == 6 and graph.nodes["d1"]["memory_type"] == "decision"
    assert write_graph(story, tmp_path / "g.json", format="json",
                       filter=Filter(ids=["o1", "d1"])) == 1
    with pytest.raises(GraphError, match="unknown graph format"):
        write_graph(story, tmp_path / "g.gexf", format="gexf")


def test_graphml_holds_control_characters_written_out(store: MemoryStore,
                                                      tmp_path: Path) -> None:
    store.add([Memory.new("bell\x07 and escape\x1b[31m red", "fact", id="ctl"),
               Memory.new("plain neighbour", "fact", id="n")])
    store.edges.add([Edge.new("ctl", "n", "relates_to", evidence=["ev\x00il"])])
    write_graph(store, tmp_path / "g.graphml")
    graph = nx.read_graphml(tmp_path / "g.graphml")
    assert graph.nodes["ctl"]["content"] == "bell<U+0007> and escape<U+001B>[31m red"


def test_neighbourhood_draws_edges_between_its_outermost_memories(story: MemoryStore) -> None:
    link(story, "o1", "contradicts", "d2")  # both one hop from d1
    one = neighbourhood(story, "d1", hops=1)
    assert ("o1", "d2", "contradicts") in {(e.source_id, e.target_id, e.relation)
                                           for e in one.edges}


def test_graphml_ids_are_safe_and_a_failed_write_leaves_no_file(store: MemoryStore,
                                                                tmp_path: Path) -> None:
    store.add([Memory.new("odd id", "fact", id="id\x01x"), Memory.new("other", "fact", id="o")])
    store.edges.add([Edge.new("id\x01x", "o", "caused")])
    assert write_graph(store, tmp_path / "g.graphml") == 1
    assert "id<U+0001>x" in nx.read_graphml(tmp_path / "g.graphml").nodes
    with pytest.raises(GraphError, match="cannot write the graph"):
        write_graph(store, tmp_path / "missing-folder" / "g.graphml")
    assert not list(tmp_path.glob("missing-folder/.*"))


def test_lineage_leaves_out_dangling_ends(story: MemoryStore) -> None:
    story.edges.add([Edge.new("ghost", "d2", "caused", id="dangling")], check_endpoints=False)
    assert "ghost" not in {p.memory_id for p in lineage(story, "d2").ancestors}
