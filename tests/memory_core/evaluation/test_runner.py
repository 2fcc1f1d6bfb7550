"""Running configs over a query set on a real LanceDB store with the fake embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memory_core.evaluation import (
    Query,
    compare_configs,
    evaluate_config,
    run_queries,
)
from memory_core.filters import Filter
from memory_core.records import Memory
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
