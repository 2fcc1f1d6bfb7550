"""How long `tune` will take, told before it starts: a few searches of the starting config,
timed, times the number of searches the grid needs (configs x queries).

The first search is not timed: it loads the model and warms the store's caches, which the
thousands of searches after it do not pay again. Configs differ in cost (the graph, the
decay rerank), so the figure is the starting config's, an estimate and no more.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memory_core.evaluation.queryset import Query
from memory_core.retrieval.config import RankingConfig

if TYPE_CHECKING:
    from memory_core.store import MemoryStore

#: How many searches are timed (after one that is not).
TIMED = 5


@dataclass(frozen=True)
class TuneEstimate:
    """`configs` x `queries` searches at `seconds_each` (the mean of `timed` searches)."""

    configs: int
    queries: int
    timed: int
    seconds_each: float

    @property
    def searches(self) -> int:
        """How many searches tuning runs."""
        return self.configs * self.queries

    @property
    def seconds(self) -> float:
        """The estimated time of them all."""
        return self.searches * self.seconds_each

    def line(self) -> str:
        """The estimate as `memlens tune` prints it.

        >>> TuneEstimate(configs=12, queries=1000, timed=5, seconds_each=0.03).line()
        'estimated 6 min: 12,000 searches (12 configs x 1,000 queries) at 30 ms each (timed on 5)'
        """
        return (f"estimated {duration(self.seconds)}: {self.searches:,} searches "
                f"({self.configs:,} configs x {self.queries:,} queries) at "
                f"{self.seconds_each * 1000:,.0f} ms each (timed on {self.timed})")


def duration(seconds: float) -> str:
    """A duration for people: seconds, minutes or hours, rounded.

    >>> duration(42), duration(360), duration(5400)
    ('42 s', '6 min', '1.5 h')
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate(store: MemoryStore, queries: Sequence[Query], config: RankingConfig, *,
             configs: int, depth: int = 10, now: datetime | None = None,
             timed: int = TIMED) -> TuneEstimate:
    """Time `config` on the first queries of `queries` (one untimed, then up to `timed`)
    and scale to `configs` configs over every query."""
    from memory_core.retrieval.search import search

    if not queries:
        return TuneEstimate(configs=configs, queries=0, timed=0, seconds_each=0.0)
    first, rest = queries[0], list(queries[1:timed + 1]) or [queries[0]]
    search(store, first.query, first.filter, config, limit=depth, now=now)
    started = time.perf_counter()
    for q in rest:
        search(store, q.query, q.filter, config, limit=depth, now=now)
    each = (time.perf_counter() - started) / len(rest)
    return TuneEstimate(configs=configs, queries=len(queries), timed=len(rest),
                        seconds_each=each)
