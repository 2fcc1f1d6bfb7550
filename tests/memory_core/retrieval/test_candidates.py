"""Stage 1: each engine's candidates, the graph from the fused seeds, and degraded reasons."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_core.causal.expansion import GraphHit
from memory_core.embedding import UnavailableEmbedder
from memory_core.model.filters import Filter
from memory_core.retrieval.candidates import (
    BM25_OFF,
    Candidates,
    candidates,
    engine_candidates,
    with_graph,
)
from memory_core.retrieval.config import preset
from memory_core.retrieval.engines import Candidate
from memory_core.retrieval.fusion import fuse
from memory_core.retrieval.graph_candidates import GraphCandidate
from memory_core.store import MemoryStore
from tests.conftest import FAKE_DIM, FakeEmbedder
from tests.memory_core.retrieval.test_search_golden import NOW, build

QUERY = "refresh token race"


@pytest.fixture
def corpus(store_path: str, fake_embedder: FakeEmbedder) -> MemoryStore:
    return build(store_path, fake_embedder)


def test_engines_rank_in_the_order_they_ran(corpus: MemoryStore) -> None:
    found = engine_candidates(corpus, QUERY, Filter(), preset("hybrid"), 5)
    assert list(found.rankings) == ["vector", "bm25"] and found.reasons == ()
    for ranking in found.rankings.values():
        assert [c.rank for c in ranking] == list(range(1, len(ranking) + 1))
        assert len(ranking) <= 5
    assert found.graph == {}
    only_bm25 = engine_candidates(corpus, QUERY, Filter(), preset("bm25"), 5)
    assert list(only_bm25.rankings) == ["bm25"]


def test_filter_applies_to_every_engine(corpus: MemoryStore) -> None:
    found = candidates(corpus, QUERY, Filter(project="herd"), preset("hybrid_graph"), 50,
                       now=NOW)
    ids = {c.doc_id for ranking in found.rankings.values() for c in ranking}
    assert ids and ids <= corpus.ids(Filter(project="herd"))


def test_graph_expands_from_the_best_fused_seeds(corpus: MemoryStore) -> None:
    cfg = preset("hybrid_graph").with_changes(graph_seeds=1)
    found = candidates(corpus, QUERY, Filter(), cfg, 50, now=NOW)
    engines = engine_candidates(corpus, QUERY, Filter(), cfg, 50)
    best = fuse(engines.ids(), cfg)[0].doc_id
    assert list(found.rankings) == ["vector", "bm25", "graph"]
    graph = found.rankings["graph"]
    assert graph and {g.hit.seed_id for g in found.graph.values()} == {best}
    assert [c.doc_id for c in graph] == list(found.graph)
    assert [c.score for c in graph] == [found.graph[c.doc_id].hit.score for c in graph]


def test_the_graph_reads_the_adjacency_once_per_search(corpus: MemoryStore,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    adjacency = corpus.edges.adjacency

    def counted() -> Any:
        calls.append(1)
        return adjacency()

    monkeypatch.setattr(corpus.edges, "adjacency", counted)
    candidates(corpus, QUERY, Filter(), preset("hybrid"), 50, now=NOW)
    assert calls == []
    candidates(corpus, QUERY, Filter(), preset("hybrid_graph"), 50, now=NOW)
    assert calls == [1]


def test_with_graph_adds_a_third_engine_ranked_by_position() -> None:
    found = Candidates({"bm25": (Candidate("a", 1, 3.0),)}, reasons=("why",))
    hits = [GraphCandidate("b", GraphHit("b", 0.7, 1, "a", ("e1",), ("supports",))),
            GraphCandidate("n", GraphHit("o", 0.4, 2, "a", ("e1", "e2"), ("caused", "x")),
                           replaces="o")]
    out = with_graph(found, hits)
    assert out.rankings["graph"] == (Candidate("b", 1, 0.7), Candidate("n", 2, 0.4))
    assert out.rankings["bm25"] == found.rankings["bm25"] and out.reasons == ("why",)
    assert out.graph == {"b": hits[0], "n": hits[1]}
    assert out.ids() == {"bm25": ["a"], "graph": ["b", "n"]}
    assert found.rankings.keys() == {"bm25"}  # the input is unchanged


def test_no_embedder_falls_back_to_bm25_once(corpus: MemoryStore, store_path: str) -> None:
    broken = MemoryStore.open(store_path, embedder=UnavailableEmbedder(
        FakeEmbedder.model_id, FAKE_DIM, "model files are missing"))
    for name in ("vector", "hybrid"):
        found = engine_candidates(broken, QUERY, Filter(), preset(name), 10)
        assert list(found.rankings) == ["bm25"] and found.rankings["bm25"]
        assert found.reasons == ("vector search is off, the embedder is unavailable: "
                                 "model files are missing",)


def test_read_only_store_without_full_text_index_says_bm25_is_off(
        corpus: MemoryStore, fake_embedder: FakeEmbedder) -> None:
    reader = MemoryStore(corpus.tables, tenant="default", embedder=fake_embedder,
                         read_only=True)
    found = engine_candidates(reader, QUERY, Filter(), preset("hybrid"), 10)
    assert list(found.rankings) == ["vector"] and found.reasons == (BM25_OFF,)
    assert "memlens index" in BM25_OFF


@pytest.mark.parametrize("name", ["hybrid", "bm25"])
def test_a_damaged_full_text_index_turns_bm25_off_with_the_reason(
        tmp_path: Path, name: str) -> None:
    """Issue 42: with the index's files gone, search failed with Lance's traceback; now BM25
    is off, the reason says how to rebuild it, and the vector engine answers alone."""
    import shutil

    from memory_core.retrieval.candidates import engine_candidates
    from tests.memory_core.integrity.damaged import build_base

    folder = tmp_path / "store"
    build_base(folder)
    for index in (folder / "memories.lance" / "_indices").iterdir():
        shutil.rmtree(index)
    store = MemoryStore.open(str(folder), embedder=FakeEmbedder())
    found = engine_candidates(store, "deploy server", Filter(), preset(name), 20)
    assert list(found.rankings) == ["vector"] and len(found.rankings["vector"]) == 20
    [reason] = found.reasons
    assert reason.startswith("BM25 is off: the full-text index is damaged (")
    assert reason.endswith("does not read); run `memlens check --repair` to rebuild it")


@pytest.mark.parametrize("config", ["hybrid", "full", "bm25", "vector"])
def test_with_the_speed_up_off_a_search_runs_on_the_callers_thread_with_the_same_hits(
        corpus: MemoryStore, store_path: str, monkeypatch: pytest.MonkeyPatch,
        config: str) -> None:
    from memory_core.retrieval import candidates as stage
    from memory_core.retrieval import search_threads as threads_module
    from tests.memory_core.retrieval.test_search_golden import observe

    ran: list[str] = []  # the thread each LanceDB job of the engines ran on

    def on_thread(job: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            ran.append(threading.current_thread().name)
            return job(*args, **kwargs)
        return run

    monkeypatch.setattr(stage, "bm25_candidates", on_thread(stage.bm25_candidates))
    monkeypatch.setattr(stage, "_pending_reason", on_thread(stage._pending_reason))
    cfg = preset(config)
    expected = observe(corpus, QUERY, Filter(), cfg, 5)
    assert expected["hits"] and ran and all(n.startswith("memlens-search") for n in ran)

    plain = MemoryStore.open(store_path, embedder=corpus.embedder, tenant="default",
                             accel=False)
    monkeypatch.setattr(threads_module, "_POOL", None)  # a fresh process's: none yet
    searching = {t.ident for t in threading.enumerate() if t.name.startswith("memlens-search")}
    ran.clear()
    assert observe(plain, QUERY, Filter(), cfg, 5) == expected
    assert ran and set(ran) == {threading.current_thread().name}
    assert threads_module._POOL is None
    assert {t.ident for t in threading.enumerate()
            if t.name.startswith("memlens-search")} == searching
