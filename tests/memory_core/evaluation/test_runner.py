"""Running configs over a query set on a real LanceDB store with the fake embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memory_core.evaluation import (
    Query,
    QueryWarning,
    RetrievalRun,
    compare_configs,
    evaluate_config,
    run_queries,
)
from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.retrieval.config import preset
from memory_core.store import MemoryStore

NOW = datetime(2026, 10, 1, tzinfo=UTC)


@pytest.fixture
def world(store: MemoryStore) -> dict[str, Memory]:
    def m(content: str, **kw: Any) -> Memory:
        return Memory.new(content, created_at=NOW - timedelta(days=5), **kw)

    mems = {
        "refresh": m("token refresh race logs users out in two tabs", project="atlas"),
        "cache": m("ci cache key includes the lockfile hash", project="herd"),
        "uv": m("prefer uv over pip for python installs", project="herd",
                memory_type="preference"),
        "grace": m("rotate refresh tokens with a grace window", project="atlas",
                   memory_type="decision"),
        "noise": m("weekly standup moved to thursday afternoons", project="atlas"),
    }
    store.add(list(mems.values()))
    return mems


@pytest.fixture
def queries(world: dict[str, Memory]) -> list[Query]:
    return [
        Query("refresh", "refresh token race", {world["refresh"].id: 2, world["grace"].id: 1},
              tags=("auth",)),
        Query("cache", "lockfile cache key", {world["cache"].id: 1},
              Filter(project="herd"), tags=("ci",)),
        Query("filtered-out", "lockfile cache key", {world["cache"].id: 1},
              Filter(project="nowhere"), tags=("ci",)),
        Query("ghost", "python installs", {"not-in-the-store": 1}),
    ]


def test_run_keeps_every_query_ranked_ids_and_hits(store: MemoryStore,
                                                   world: dict[str, Memory],
                                                   queries: list[Query]) -> None:
    ticks: list[int] = []
    run = run_queries(store, queries, preset("bm25"), depth=3, progress=ticks.append, now=NOW)
    assert ticks == [1, 1, 1, 1] and run.now == NOW and run.depth == 3
    assert set(run.ranked) == {q.qid for q in queries}
    assert run.ids("refresh")[0] == world["refresh"].id
    assert run.ids("cache") == [world["cache"].id]  # the filter keeps herd only
    assert run.ranked["filtered-out"] == () and run.hits["filtered-out"] == ()
    first = run.hits["refresh"][0]
    assert first.memory.id == world["refresh"].id and "bm25" in first.explain()["engines"]
    assert first.memory.vector is None  # hits keep no vectors
    assert run.ranked["refresh"][0] == (first.memory.id, first.score)
    assert run.unreachable == ("ghost",)
    lean = run_queries(store, queries, preset("bm25"), depth=3, now=NOW, keep_hits=False)
    assert lean.ranked == run.ranked and lean.hits == {}  # what tune keeps of a large set


def test_evaluate_config_scores_found_and_missing_queries(store: MemoryStore,
                                                         queries: list[Query]) -> None:
    result = evaluate_config(store, queries, preset("hybrid"), name="hybrid", ks=(1, 5),
                             now=NOW)
    per_query = {r["qid"]: r for r in result.per_query.iter_rows(named=True)}
    assert per_query["refresh"]["hit_rate@1"] == 1.0 and per_query["refresh"]["mrr@5"] == 1.0
    assert per_query["cache"]["recall@5"] == 1.0 and per_query["cache"]["mrr@5"] == 1.0
    assert per_query["filtered-out"]["n_retrieved"] == 0
    for qid in ("filtered-out", "ghost"):
        assert all(per_query[qid][m] == 0.0 for m in result.metrics)
    # every query counts in the mean: mrr@5 = (1 + 1 + 0 + 0) / 4
    assert result.mean("mrr@5") == pytest.approx(0.5)
    summary = {r["metric"]: r for r in result.summary.iter_rows(named=True)}
    assert summary["mrr@5"]["mean"] == pytest.approx(0.5) and summary["mrr@5"]["n"] == 4
    assert summary["mrr@5"]["ci_low"] < 0.5 < summary["mrr@5"]["ci_high"]
    assert result.summary["config"].unique().to_list() == ["hybrid"]
    ci = result.by_tag.filter((result.by_tag["tag"] == "ci")
                              & (result.by_tag["metric"] == "mrr@5"))
    assert ci["n"].to_list() == [2] and ci["mean"].to_list() == [0.5]
    assert result.config == preset("hybrid") and result.primary == "ndcg@5"


def test_compare_configs_runs_both_on_the_same_clock(store: MemoryStore,
                                                     queries: list[Query]) -> None:
    ticks: list[int] = []
    cmp = compare_configs(store, queries, preset("bm25"), preset("hybrid"),
                          names=("bm25", "hybrid"), ks=(3,), progress=ticks.append, now=NOW)
    assert len(ticks) == 2 * len(queries)
    assert cmp.names == ("bm25", "hybrid")
    assert cmp.baseline.run.now == cmp.candidate.run.now == NOW
    assert cmp.summary.height == len(cmp.metrics) == 6
    same = compare_configs(store, queries, preset("bm25"), preset("bm25"), names=("x", "x"),
                           ks=(3,), now=NOW)
    assert same.names == ("x (a)", "x (b)")
    assert same.summary["p_value"].to_list() == [1.0] * 6


def test_every_query_that_retrieved_nothing_is_named_with_why(
        store: MemoryStore, world: dict[str, Memory]) -> None:
    MemoryStore.open(store.uri, tenant="acme", embedder=store.embedder).add(
        [Memory.new("acme keeps its own lockfile cache key", project="herd")])
    cache = {world["cache"].id: 1}
    queries = [
        Query("found", "lockfile cache key", cache, Filter(project="herd")),
        Query("no-project", "lockfile cache key", cache, Filter(project="nowhere")),
        Query("acme", "lockfile cache key", cache, Filter(tenant="acme")),
        Query("absent", "lockfile cache key", cache, Filter(tenant="initech")),
        Query("together", "lockfile cache key", cache,
              Filter(project="herd", memory_type="decision")),
        Query("archived", "lockfile cache key", cache, Filter(status="archived")),
        Query("ghost", "python installs", {"not-in-the-store": 1}),
        Query("ghost-scoped", "python installs", {"not-in-the-store": 1},
              Filter(project="nowhere")),
        Query("no-words", "zebra quartz", cache),
        Query("evil\x1b]52;c;eA==\x07", "zebra quartz", cache, Filter(project="nowhere")),
    ]
    cmp = compare_configs(store, queries, preset("bm25"), preset("hybrid"),
                          names=("bm25", "hybrid"), ks=(3,), now=NOW)
    default = "tenant 'default'"
    nothing = f"its filter matches no memory of {default}: nothing matches"
    both, bm25_only = ("bm25", "hybrid"), ("bm25",)
    assert [(w.qid, w.kind, w.reason, w.configs) for w in cmp.warnings] == [
        ("no-project", "empty", f"{nothing} project 'nowhere'", both),
        ("acme", "empty", "its filter names tenant 'acme' (another tenant); evaluation "
                          f"searches {default} only", both),
        ("absent", "empty", "its filter names tenant 'initech' (a tenant this store does not "
                            f"have); evaluation searches {default} only", both),
        ("together", "empty", f"its filter matches no memory of {default}: project 'herd' and "
                              "type 'decision' each match some memories, but none matches all",
         both),
        ("archived", "empty", f"its filter matches no memory of {default}: it holds no memory "
                              "of status archived", both),
        ("ghost", "unreachable", "", both),
        ("ghost-scoped", "empty", f"{nothing} project 'nowhere'; none of its relevant "
                                  f"memories is in {default}", both),
        # BM25 matches no word of it; vector search always finds a nearest memory
        ("no-words", "empty", "", bm25_only),
        ("evil\x1b]52;c;eA==\x07", "empty", f"{nothing} project 'nowhere'", both),
    ]
    assert cmp.baseline.warnings[0].configs == bm25_only
    assert [w.qid for w in cmp.candidate.run.warnings] == [
        "no-project", "acme", "absent", "together", "archived", "ghost", "ghost-scoped",
        "evil\x1b]52;c;eA==\x07"]
    evil = cmp.warnings[-1].message
    assert evil.startswith("'evil\\x1b]52;c;eA==\\x07' retrieved nothing: its filter")
    assert "\x1b" not in evil and "\x07" not in evil
    assert cmp.warnings[5].message == "'ghost' has no relevant memory in the tenant"
    assert cmp.to_dict()["warnings"][0] == {
        "qid": "no-project", "kind": "empty", "problem": "retrieved nothing",
        "reason": f"{nothing} project 'nowhere'", "configs": ["bm25", "hybrid"]}
    assert cmp.baseline.to_dict()["warnings"] == [w.to_dict() for w in cmp.baseline.warnings]


def test_a_run_from_ranked_lists_warns_of_the_empty_ones_without_a_reason() -> None:
    run = RetrievalRun.from_ranked({"a": ["m1"], "b": [], "c": []})
    assert run.warnings == (QueryWarning("b", "empty"), QueryWarning("c", "empty"))
    assert run.warnings[0].message == "'b' retrieved nothing"
