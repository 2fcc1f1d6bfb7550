"""PathRAG expansion caps and superseded successors (docs/design/retrieval.md), by hand."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_core.causal.expansion import build_adjacency, expand, successor
from memory_core.model.records import Edge

NOW = datetime(2026, 10, 1, tzinfo=UTC)


def _edge(src: str, dst: str, strength: float, relation: str = "caused") -> Edge:
    return Edge.new(src, dst, relation, id=f"{src}-{dst}", created_at=NOW, strength=strength)


def test_fanout_takes_the_strongest_edges_first() -> None:
    adjacency = build_adjacency([_edge("s", f"n{i}", s) for i, s in
                                 enumerate([0.2, 0.9, 0.5, 0.7, 0.1])])
    hits = expand(["s"], adjacency, NOW, hops=1, fanout=3, beam=8)
    assert [(h.doc_id, h.score) for h in hits] == [("n1", 0.9), ("n3", 0.7), ("n2", 0.5)]


def test_beam_caps_nodes_kept_per_hop_and_hops_cap_depth() -> None:
    edges = [_edge(f"s{i}", f"a{i}{j}", 0.9 - 0.1 * j) for i in range(4) for j in range(3)]
    edges += [_edge("a00", "deep", 0.5), _edge("deep", "deeper", 0.5)]
    hits = expand([f"s{i}" for i in range(4)], build_adjacency(edges), NOW, hops=2, fanout=3,
                  beam=8)
    first = [h for h in hits if h.hops == 1]
    assert len(first) == 8  # 12 reachable, beam keeps 8
    assert {h.doc_id for h in hits if h.hops == 2} == {"deep"}
    assert "deeper" not in {h.doc_id for h in hits}  # three hops away
    deep = next(h for h in hits if h.doc_id == "deep")
    assert deep.score == 0.9 * 0.5 and deep.relations == ("caused", "caused")


def test_edges_are_followed_both_ways() -> None:
    adjacency = build_adjacency([_edge("cause", "decision", 0.8)])
    assert [h.doc_id for h in expand(["decision"], adjacency, NOW, hops=1)] == ["cause"]


def test_successor_follows_a_supersedes_chain() -> None:
    adjacency = build_adjacency([_edge("v2", "v1", 1.0, "supersedes"),
                                 _edge("v3", "v2", 1.0, "supersedes")])
    assert successor("v1", adjacency) == "v3"
    assert successor("v3", adjacency) is None


def test_a_seed_reached_from_another_seed_counts_but_never_from_itself() -> None:
    adjacency = build_adjacency([_edge("a", "b", 0.9), _edge("b", "c", 0.5)])
    hits = {h.doc_id: h for h in expand(["a", "b"], adjacency, NOW, hops=2)}
    assert hits["b"].seed_id == "a" and hits["a"].seed_id == "b"
    assert hits["c"].score == 0.5 and hits["c"].seed_id == "b"
    assert all(h.doc_id != h.seed_id for h in hits.values())
