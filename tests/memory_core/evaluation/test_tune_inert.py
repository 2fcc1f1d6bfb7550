"""`INERT`: a knob it calls inert really cannot change a ranking. Each rule is checked by
searching both values on a store where every stage has something to do (sessions for the
context lift, edges for the graph, ages for decay, near-duplicates for MMR)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memory_core.evaluation.tune_space import INERT, ranking_key, with_knobs
from memory_core.model.records import Edge, Memory
from memory_core.retrieval.config import RankingConfig
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore

NOW = datetime(2026, 10, 1, tzinfo=UTC)
QUERIES = ("refresh token race", "lockfile cache key", "standup thursday")

#: (where the rule holds, the knob, another value of it)
CASES: list[tuple[dict[str, Any], str, Any]] = [
    ({"fusion": "convex"}, "rrf_k", 5),
    ({"fusion": "combmnz"}, "convergence_bonus", 2.0),
    ({"fusion": "rrf"}, "normalisation", "minmax"),
    ({"context_window": 0}, "context_weight", 0.9),
    ({"context_weight": 0.0}, "context_window", 4),
    ({"use_vector": False}, "weight_vector", 3.0),
    ({"use_bm25": False}, "weight_bm25", 3.0),
    ({"use_graph": False}, "weight_graph", 4.0),
    ({"use_graph": False}, "graph_hops", 1),
    ({"use_graph": False}, "graph_seeds", 1),
    ({"use_decay": False}, "decay_weight", 0.7),
    ({"use_decay": False}, "decay.usage_cap", 1.1),
    ({"use_mmr": False}, "mmr_lambda", 0.9),
]


@pytest.fixture
def busy(store: MemoryStore) -> MemoryStore:
    def m(content: str, days: int, session: str | None = None, **kw: Any) -> Memory:
        return Memory.new(content, created_at=NOW - timedelta(days=days), session_id=session,
                          **kw)

    chat = [m(text, 30 - i, "s1") for i, text in enumerate((
        "why do users get logged out", "the refresh token race in two tabs",
        "rotate with a grace window", "and the lockfile cache key?", "include its hash"))]
    other = [m("refresh token race fixed in v2", 200), m("refresh token race fixed in v2!", 2),
             m("standup moved to thursday", 90, importance="important"),
             m("ci cache key rotates weekly", 10, "s2"), m("lockfile pinned", 9, "s2")]
    store.add(chat + other)
    store.edges.add([Edge.new(other[0].id, chat[2].id, "relates_to", created_at=NOW),
                     Edge.new(other[3].id, chat[4].id, "caused", created_at=NOW)])
    return store


def _ranked(store: MemoryStore, config: RankingConfig) -> list[list[tuple[str, float]]]:
    return [[(h.memory.id, round(h.score, 12)) for h in search(store, q, config=config, now=NOW)]
            for q in QUERIES]


@pytest.mark.parametrize(("where", "knob", "other"), CASES,
                         ids=[f"{k}-{next(iter(w))}" for w, k, _ in CASES])
def test_an_inert_knob_changes_no_ranking(busy: MemoryStore, where: dict[str, Any], knob: str,
                                          other: Any) -> None:
    on = {"use_graph": True, "use_decay": True, "use_mmr": True, "context_window": 2}
    config = with_knobs(RankingConfig(), {**on, **where})
    changed = with_knobs(config, {knob: other})
    assert changed != config and ranking_key(changed) == ranking_key(config)
    assert _ranked(busy, changed) == _ranked(busy, config)


def test_every_rule_is_checked() -> None:
    assert {prefix for prefix, _ in INERT} == {k if k in {p for p, _ in INERT} else
                                              next(p for p, _ in INERT if k.startswith(p))
                                              for _, k, _ in CASES}
