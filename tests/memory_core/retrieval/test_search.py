"""search() and recall() on real LanceDB stores with the deterministic fake embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_core.causal.expansion import GraphHit
from memory_core.decay import DecayFactors
from memory_core.embedding import UnavailableEmbedder
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.candidates import Candidates
from memory_core.retrieval.config import DEFAULT_PRESET, PRESETS, RankingConfig, preset
from memory_core.retrieval.engines import Candidate
from memory_core.retrieval.fusion import fuse
from memory_core.retrieval.graph_candidates import GraphCandidate
from memory_core.retrieval.recall import recall
from memory_core.retrieval.rerank import Scored
from memory_core.retrieval.search import EngineEvidence, explain, search
from memory_core.retrieval.session_dedup import SessionDedup
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder

NOW = datetime(2026, 10, 1, tzinfo=UTC)


def _m(content: str, **kw) -> Memory:
    kw.setdefault("memory_type", "observation")
    kw.setdefault("created_at", NOW - timedelta(days=10))
    return Memory.new(content, **kw)


@pytest.fixture
def world(store: MemoryStore) -> dict[str, Memory]:
    mems = {
        "obs": _m("token refresh race logs users out in two tabs", project="atlas",
                  agent="mason"),
        "old": _m("decision use long lived refresh tokens", memory_type="decision",
                  project="atlas", status="superseded"),
        "new": _m("decision rotate refresh tokens with a grace window", memory_type="decision",
                  project="atlas"),
        "other": _m("ci cache key includes lockfile hash", project="herd", agent="steve"),
        "archived": _m("token refresh notes from an old spike", project="atlas",
                       status="archived"),
        "why": _m("grace window chosen because mobile clients retry", project="atlas",
                  memory_type="decision_context"),
    }
    store.add(list(mems.values()))
    store.edges.add([
        Edge.new(mems["new"].id, mems["old"].id, "supersedes", created_at=NOW),
        Edge.new(mems["obs"].id, mems["old"].id, "caused", created_at=NOW, strength=0.9),
        Edge.new(mems["why"].id, mems["new"].id, "supports", created_at=NOW, strength=0.8),
    ])
    return mems


@pytest.mark.parametrize("name", list(PRESETS))
def test_explanation_parts_reproduce_the_final_score(store: MemoryStore, world: dict,
                                                     name: str) -> None:
    cfg = PRESETS[name].with_changes(use_mmr=name == "full")
    results = search(store, "refresh token race", config=cfg, limit=5, now=NOW)
    assert results and not results.degraded
    weights = {"vector": cfg.weight_vector, "bm25": cfg.weight_bm25, "graph": cfg.weight_graph}
    for hit in results:
        assert hit.fused_sum == pytest.approx(sum(ev.contribution for ev in hit.engines.values()))
        assert hit.score == pytest.approx(
            hit.fused_sum * hit.bonus * hit.decay + hit.mmr_adjustment)
        if cfg.fusion == "rrf":
            assert hit.bonus == (1.10 if len(hit.engines) >= 2 else 1.0)
            for engine, ev in hit.engines.items():
                assert ev.contribution == pytest.approx(weights[engine] / (cfg.rrf_k + ev.rank))
        else:  # convex: each contribution is the weight's share of a score in 0..
            assert hit.bonus == 1.0
            assert all(ev.contribution >= 0 for ev in hit.engines.values())
    assert [h.rank for h in results] == list(range(1, len(results) + 1))


def test_explain_gives_each_hit_the_parts_of_its_score() -> None:
    found = Candidates(
        {"vector": (Candidate("a", 1, 0.9), Candidate("b", 2, 0.8)),
         "bm25": (Candidate("b", 1, 4.0),),
         "graph": (Candidate("c", 1, 0.7),)},
        graph={"c": GraphCandidate("c", GraphHit("o", 0.7, 1, "a", ("e1",), ("supersedes",)),
                                   replaces="o")})
    rrf_full = preset("hybrid_rrf").with_changes(use_graph=True, use_decay=True)
    fused = {f.doc_id: f for f in fuse(found.ids(), rrf_full)}
    factors = DecayFactors(0.9, 1.0, 1.0, 1.0, 1.0, 0.9)
    mems = {d: _m(f"memory {d}", id=d, vector=[1.0] * FAKE_DIM) for d in "abc"}
    ranked = [Scored(fused["b"], mems["b"], factors, fused["b"].score * 0.9, -0.002, prior=0.9),
              Scored(fused["c"], mems["c"], None, fused["c"].score),
              Scored(fused["a"], mems["a"], factors, fused["a"].score * 0.9, -0.001, prior=0.9)]
    hits = explain(ranked, found)
    assert [(h.memory.id, h.rank) for h in hits] == [("b", 1), ("c", 2), ("a", 3)]
    b, c, a = hits
    assert b.engines == {"vector": EngineEvidence(2, 0.8, 1 / 62),
                         "bm25": EngineEvidence(1, 4.0, 1 / 61)}
    assert (b.fused_sum, b.bonus, b.decay, b.mmr_adjustment) == (1 / 62 + 1 / 61, 1.10, 0.9, -0.002)
    assert b.score == (1 / 62 + 1 / 61) * 1.10 * 0.9 - 0.002
    assert b.explain()["mmr_adjustment"] == -0.002
    assert b.explain()["decay_factors"]["composite"] == 0.9
    assert c.engines == {"graph": EngineEvidence(1, 0.7, 1.5 / 61)}
    assert (c.score, c.decay, c.decay_factors) == (1.5 / 61, 1.0, None)
    assert c.replaces == "o" and c.explain()["graph"] == {"seed": "a", "hops": 1,
                                                          "relations": ["supersedes"]}
    assert a.graph is None and a.replaces is None
    assert all(h.memory.vector is None for h in hits)  # vectors are not sent out
    for hit in hits:
        assert hit.score == pytest.approx(
            hit.fused_sum * hit.bonus * hit.decay + hit.mmr_adjustment)


def test_the_default_config_is_the_default_preset(store: MemoryStore, world: dict) -> None:
    default = search(store, "refresh token race", now=NOW)
    assert default.config == preset(DEFAULT_PRESET) == preset("hybrid_graph")
    assert default == search(store, "refresh token race", config=preset(DEFAULT_PRESET),
                             now=NOW)


def test_results_compare_by_their_hits_not_their_timing(store: MemoryStore,
                                                        world: dict) -> None:
    first = search(store, "token refresh", config=preset("hybrid"), now=NOW)
    again = search(store, "token refresh", config=preset("hybrid"), now=NOW)
    assert first == again and list(first) == list(again)
    fewer = search(store, "token refresh", config=preset("hybrid"), limit=1, now=NOW)
    assert fewer != first and list(fewer) == list(first)[:1]
    other = search(store, "ci cache key", config=preset("hybrid"), now=NOW)
    assert other != first


def test_filtered_search_returns_only_matching_active_rows(store: MemoryStore,
                                                           world: dict) -> None:
    for cfg in PRESETS.values():
        results = search(store, "token refresh", Filter(project="atlas"), cfg, limit=10,
                         now=NOW)
        assert results
        assert all(h.memory.project == "atlas" and h.memory.status == "active"
                   for h in results)
        ids = {h.memory.id for h in results}
        assert world["archived"].id not in ids and world["old"].id not in ids
    asked = search(store, "token refresh", Filter(status=["active", "archived"]),
                   preset("bm25"), limit=10, now=NOW)
    assert world["archived"].id in {h.memory.id for h in asked}


def test_other_tenants_are_invisible(store_path: str, fake_embedder: FakeEmbedder,
                                     world: dict) -> None:
    other = MemoryStore.open(store_path, embedder=fake_embedder, tenant="globex")
    other.add([_m("token refresh race in globex")])
    results = search(other, "token refresh race", config=preset("hybrid_graph"), now=NOW)
    assert [h.memory.tenant for h in results] == ["globex"]


def test_superseded_memory_reached_by_graph_is_replaced_by_its_successor(
        store: MemoryStore, world: dict) -> None:
    cfg = preset("hybrid_graph").with_changes(use_vector=False)
    results = search(store, "users out in two tabs", Filter(project="atlas"), cfg, limit=10,
                     now=NOW)
    replaced = [h for h in results if h.replaces]
    assert [h.memory.id for h in replaced] == [world["new"].id]
    assert replaced[0].replaces == world["old"].id
    assert "superseded" in replaced[0].explain()["note"]
    assert "graph" in replaced[0].engines


def test_search_never_changes_access_statistics(store: MemoryStore, world: dict) -> None:
    before = {m.id: (m.access_count, m.last_accessed_at) for m in store.list()}
    for cfg in PRESETS.values():
        search(store, "token refresh", config=cfg, now=NOW)
    assert {m.id: (m.access_count, m.last_accessed_at) for m in store.list()} == before
    assert [e.action for e in store.audit.entries()] == ["add_edges", "add"]


def test_degraded_without_embedder_falls_back_to_bm25(store_path: str, world: dict) -> None:
    broken = UnavailableEmbedder("test/fake-bow", FAKE_DIM, "model files are missing")
    store = MemoryStore.open(store_path, embedder=broken)
    results = search(store, "token refresh", config=preset("vector"), now=NOW)
    assert results.degraded and "model files are missing" in results.reasons[0]
    assert results and all(set(h.engines) <= {"bm25", "graph"} for h in results)


def test_pending_records_mark_results_degraded(store_path: str, world: dict,
                                               fake_embedder: FakeEmbedder) -> None:
    broken = UnavailableEmbedder("test/fake-bow", FAKE_DIM, "offline")
    MemoryStore.open(store_path, embedder=broken).add([_m("token refresh pending note")])
    store = MemoryStore.open(store_path, embedder=fake_embedder)
    results = search(store, "token refresh", config=preset("hybrid"), now=NOW)
    assert results.degraded and "1 matching memories have no vector" in results.reasons[0]
    assert "pending note" in " ".join(h.memory.content for h in results)


def test_mmr_and_decay_change_the_order_explainably(store: MemoryStore) -> None:
    store.add([
        _m("cache eviction policy uses lru", access_count=0,
           created_at=NOW - timedelta(days=400)),
        _m("cache eviction policy uses lru now", created_at=NOW - timedelta(days=1)),
        _m("cache warming on deploy", created_at=NOW - timedelta(days=1)),
    ])
    plain = search(store, "cache eviction policy", config=preset("hybrid"), limit=3, now=NOW)
    decayed = search(store, "cache eviction policy", config=preset("full"), limit=3, now=NOW)
    old = next(h for h in decayed if h.memory.content == "cache eviction policy uses lru")
    fresh = next(h for h in decayed if h.memory.content.endswith("lru now"))
    # a year of decay lowers the old memory's score by the prior, explained ...
    r = old.decay_factors.retrievability if old.decay_factors else None
    assert r is not None and old.decay == pytest.approx(0.7 + 0.3 * old.decay_factors.composite)
    assert old.decay < 1.0 < fresh.decay or old.decay < fresh.decay
    # ... and the exact match stays first: a prior, not a veto
    assert plain[0].memory.content == decayed[0].memory.content
    # plain multiplication (ADR-002's) lets the fresh near-duplicate overtake it
    strict = search(store, "cache eviction policy",
                    config=preset("full").with_changes(decay_weight=1.0), limit=3, now=NOW)
    assert strict[0].memory.content == "cache eviction policy uses lru now"


def test_config_round_trips_and_diffs() -> None:
    cfg = preset("full").with_changes(mmr_lambda=0.4, candidates=20)
    assert RankingConfig.from_dict(cfg.to_dict()) == cfg
    assert dict((k, (a, b)) for k, a, b in preset("full").diff(cfg)) == {
        "candidates": (50, 20), "mmr_lambda": (0.7, 0.4)}
    with pytest.raises(ValueError, match="graph_hops must be 0..2"):
        RankingConfig(graph_hops=3)
    with pytest.raises(ValueError, match="unknown preset 'fast'.*hybrid"):
        preset("fast")


def test_recall_records_access_dedups_and_renders_tiers(store: MemoryStore, world: dict,
                                                        tmp_path: Path) -> None:
    dedup = SessionDedup(tmp_path / "sessions.sqlite")
    first = recall(store, "refresh token", limit=2, session_id="s1", dedup=dedup, now=NOW,
                   tier="minimal")
    sent = [i["id"] for i in first.items]
    assert len(sent) == 2 and set(first.items[0]) == {"id", "type", "line"}
    assert all(store.get(i).access_count == 1 for i in sent)
    assert store.get(sent[0]).last_accessed_at == NOW
    assert store.audit.entries()[0].action == "recall"
    second = recall(store, "refresh token", limit=2, session_id="s1", dedup=dedup, now=NOW)
    assert not set(i["id"] for i in second.items) & set(sent)
    assert set(sent) <= set(second.skipped_as_sent)
    later = recall(store, "refresh token", limit=2, session_id="s1", dedup=dedup,
                   now=NOW + timedelta(minutes=31))
    assert later.skipped_as_sent == []  # the session expired after 30 idle minutes
    full = recall(store, "refresh token", limit=1, tier="full", now=NOW)
    assert "explanation" in full.items[0] and "[" in full.text


def test_session_dedup_cap_and_persistence(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    dedup = SessionDedup(path, cap=100)
    dedup.mark_sent("s", [(f"old{i}", f"h{i}") for i in range(60)], NOW)
    dedup.mark_sent("s", [(f"new{i}", f"k{i}") for i in range(60)], NOW + timedelta(minutes=1))
    assert SessionDedup(path).count("s") == 100  # a new handle reads what was persisted
    ids, hashes = SessionDedup(path).already_sent("s", NOW + timedelta(minutes=2))
    assert {f"new{i}" for i in range(60)} <= ids and len(ids) == 100
    assert sum(1 for i in ids if i.startswith("old")) == 40
