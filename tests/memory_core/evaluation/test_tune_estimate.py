"""`tune`'s estimate of its own time: a few searches timed (after one that is not), scaled
to the grid's configs x queries."""

from __future__ import annotations

import pytest

from memory_core.evaluation import Query
from memory_core.evaluation.tune_estimate import TuneEstimate, duration, estimate
from memory_core.model.records import Memory
from memory_core.retrieval import search as search_module
from memory_core.retrieval.config import preset
from memory_core.store import MemoryStore


def test_the_line_says_the_time_the_searches_and_what_was_timed() -> None:
    line = TuneEstimate(configs=24, queries=1000, timed=5, seconds_each=0.25).line()
    assert line == ("estimated 1.7 h: 24,000 searches (24 configs x 1,000 queries) at 250 ms "
                    "each (timed on 5)")  # 24,000 x 0.25 s = 6,000 s = 1.67 h
    assert (duration(89), duration(90), duration(5399), duration(5400)) == (
        "89 s", "2 min", "90 min", "1.5 h")


def test_the_first_search_is_not_timed_and_the_next_five_are(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add([Memory.new(f"memory about topic {n}") for n in range(3)])
    queries = [Query(f"q{n}", f"topic {n}", {"m": 1}) for n in range(20)]
    searched: list[str] = []
    real = search_module.search

    def counted(store: MemoryStore, text: str, *args: object, **kwargs: object) -> object:
        searched.append(text)
        return real(store, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "search", counted)
    found = estimate(store, queries, preset("bm25"), configs=12)
    assert searched == [f"topic {n}" for n in range(6)]  # one to warm up, five timed
    assert (found.timed, found.queries, found.searches) == (5, 20, 240)
    assert found.seconds == pytest.approx(240 * found.seconds_each) and found.seconds_each > 0
    assert estimate(store, queries[:1], preset("bm25"), configs=2).timed == 1
