"""`generate_demo`: the deterministic demo corpus (memories, edges, queries) from one seed."""

from __future__ import annotations

import random
from dataclasses import dataclass

from memory_core.model.records import Edge, Event, Memory
from tools.demo_corpus.builder import Builder
from tools.demo_corpus.duplicates import plan_duplicates
from tools.demo_corpus.events import build_events
from tools.demo_corpus.finalise import assign_times, build_edges, build_memories
from tools.demo_corpus.generic import plan_cross_cutting, plan_summaries
from tools.demo_corpus.queries import build_queries
from tools.demo_corpus.sessions import plan_sessions
from tools.demo_corpus.storyline import plan_storylines

DEMO_SEED = 20260522


@dataclass(frozen=True)
class DemoCorpus:
    """What agents of four projects remembered over six months, with an evaluation set.

    `queries` are query-set lines (docs/design/evaluation.md): dicts with `qid`, `query`,
    `relevant` ({memory_id: grade}), `filter` and `tags`. `events` are the recalls that
    account for each memory's access history, and a few cites (`events.py`).
    """

    memories: tuple[Memory, ...]
    edges: tuple[Edge, ...]
    queries: tuple[dict, ...]
    events: tuple[Event, ...] = ()


def generate_demo(seed: int = DEMO_SEED) -> DemoCorpus:
    """The demo corpus for `seed`: the same seed always gives an equal corpus.

    Every random choice (ids included) comes from one `random.Random(seed)`; timestamps are
    UTC between 2026-04-01 and 2026-09-30. About 3,000 memories of every known type across
    four projects, six agents and 80 sessions, with their lineage as edges and the recall
    and cite events behind their access histories.

    >>> corpus = generate_demo()
    >>> 2900 <= len(corpus.memories) <= 3100
    True
    """
    rng = random.Random(seed)
    builder = Builder(rng, plan_sessions(rng))
    plan_storylines(builder)
    plan_cross_cutting(builder)
    plan_duplicates(builder)
    plan_summaries(builder)
    assign_times(builder)
    memories = build_memories(builder)
    edges = build_edges(builder)
    queries = build_queries(builder, memories, edges)
    events = build_events(memories, builder.sessions, seed)
    return DemoCorpus(memories=memories, edges=edges, queries=queries, events=events)
