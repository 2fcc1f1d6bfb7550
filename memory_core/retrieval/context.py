"""Session context: a memory is scored together with its neighbours in the same session.

In a conversation the turn that answers a question often shares few words with it, while the
turn next to it does ("When did Caroline go to the support group?" matches the question turn,
the answer is the reply). So each engine's score of a memory is lifted by a share of its best
neighbour's score: `s'(d) = s(d) + weight * max_{n in N(d)} s(n)`, where `N(d)` are the
memories up to `window` positions away in the same session (ordered by `created_at`, then id)
*and of the same memory type*: a session interleaves kinds of memory (a summary, decisions,
observations), and only a run of one kind (dialogue turns) is a conversation whose neighbours
share referents. Memories without a session are scored as before.

The mechanism is query-time smoothing, not an indexed context column: it needs no write on
import, edit or curation (nothing can go stale), works on any store as it is, and its cost is
one small read per search: the session order (`store.session_order()`, kept per table
version) names the memories within `CONTEXT_SPAN` of the candidates, and one read by row id
under the filter takes their times and vectors.

For the vector engine a neighbour's score is its exact cosine with the query; for BM25 a
memory outside the engine's top-m scores 0 (below everything it returned).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

import numpy as np

from memory_core.filters import sql_string
from memory_core.retrieval.engines import Candidate
from memory_core.store import MemoryStore

#: Engines whose scores context lifts (the graph already follows links between memories).
CONTEXT_ENGINES = ("vector", "bm25")


@dataclass(frozen=True)
class ContextLift:
    """What context added to one engine's score of a memory, and from which neighbour."""

    own: float  # the engine's own score (0 when it did not return the memory)
    added: float  # weight * the neighbour's score
    neighbour: str


@dataclass(frozen=True)
class _Session:
    """Each member's (session key, position) and each key's members in order."""

    position: dict[str, tuple[tuple[str, str], int]]
    members: dict[tuple[str, str], list[str]]

    def neighbours(self, doc_id: str, window: int) -> list[str]:
        if doc_id not in self.position:
            return []
        key, at = self.position[doc_id]
        run = self.members[key]
        return [run[j] for j in range(max(0, at - window), min(len(run), at + window + 1))
                if j != at]


#: How far in time (each side of a candidate) its neighbours are looked for: turns of one
#: conversation are seconds to minutes apart. Bounding the neighbourhood by time keeps its
#: cost flat however long a session grows; memories further apart than this are not
#: neighbours.
CONTEXT_SPAN = timedelta(hours=1)
#: The best this many candidates of each engine have their neighbours looked up: measured on
#: LoCoMo dev and the demo set, 20 ranks as well as every candidate (50) to within 0.003
#: recall@5, and halves the reads.
CONTEXT_SEEDS = 20


@dataclass(frozen=True)
class _Neighbourhood:
    """The sessions around the seeds, and the row id of every memory in them or ranked."""

    sessions: _Session
    rows: dict[str, int]


def _neighbourhood(store: MemoryStore, predicate: str, seeds: Sequence[str],
                   ranked: Sequence[str], row_of: Mapping[str, int],
                   statuses: Collection[str] | None) -> _Neighbourhood:
    """The memories under `predicate` in the same session and type as a seed, within
    `CONTEXT_SPAN` of it, ordered by (created_at, id) within each contiguous range (a
    position's neighbours are taken within one range only).

    The session order (`store.session_order()`, cached per table version) names the rows in
    the ranges. When the filter asks for `statuses` and nothing the seeds do not already
    share (the tenant, the session, the type), it decides alone; otherwise one read by row
    id under `predicate` keeps the rows the filter admits.
    """
    located = dict(row_of)
    missing = [d for d in (*seeds, *ranked) if d not in located]
    if missing:
        located.update(store.rows.locate(missing, predicate))
    around = store.session_order().around(
        {located[d]: d for d in seeds if d in located}, CONTEXT_SPAN, statuses)
    members = list(around.rows.items())
    if statuses is None and members:
        read = store.rows.read([row for row, _ in members], predicate, ["id"])
        admitted = set(zip(read["_rowid"].to_pylist(), read["id"].to_pylist(), strict=True))
        members = [(row, m) for row, m in members if (row, m.id) in admitted]
    runs: dict[tuple[str, str], list[str]] = {}
    for row, m in sorted(members, key=lambda rm: (rm[1].created, rm[1].id)):
        span = around.ranges[m.range]
        runs.setdefault((f"{span.session_id}#{m.range}", span.memory_type), []).append(m.id)
        located[m.id] = row
    position = {doc: (key, i) for key, run in runs.items() for i, doc in enumerate(run)}
    return _Neighbourhood(_Session(position, runs), located)


def _cosines(store: MemoryStore, rows: Mapping[str, int], ids: Sequence[str],
             query_vector: Sequence[float]) -> dict[str, float]:
    """Cosine of the query with each of `ids` that has a vector (`rows`: id -> row id)."""
    wanted = {rows[i]: i for i in ids if i in rows}
    if not wanted:
        return {}
    read = store.rows.read(list(wanted), f"tenant = {sql_string(store.tenant)}",
                           ["id", "vector"])
    kept = [(i, v) for r, i, v in zip(read["_rowid"].to_pylist(), read["id"].to_pylist(),
                                      read["vector"].to_pylist(), strict=True)
            if v is not None and wanted.get(r) == i]
    if not kept:
        return {}
    matrix = np.asarray([v for _, v in kept], dtype=np.float32)
    query = np.asarray(query_vector, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    sims = matrix @ query / np.where(norms > 0, norms, 1.0)
    return {i: float(s) for (i, _), s in zip(kept, sims, strict=True)}


def lift(scores: Mapping[str, float], sessions: _Session, window: int, weight: float
         ) -> tuple[dict[str, float], dict[str, ContextLift]]:
    """Each scored memory and each neighbour of one, with `weight` x its best neighbour's
    score added; and the lifts. A pure function of the scores and the session order.

    >>> s = _Session({"a": (("s", "t"), 0), "b": (("s", "t"), 1)}, {("s", "t"): ["a", "b"]})
    >>> lifted, lifts = lift({"a": 2.0}, s, 1, 0.5)
    >>> lifted, lifts["b"].added
    ({'a': 2.0, 'b': 1.0}, 1.0)
    """
    docs = dict.fromkeys(scores)
    for doc_id in list(scores):
        docs.update(dict.fromkeys(sessions.neighbours(doc_id, window)))
    lifted: dict[str, float] = {}
    lifts: dict[str, ContextLift] = {}
    for doc_id in docs:
        own = scores.get(doc_id, 0.0)
        best = max(((scores.get(n, 0.0), n) for n in sessions.neighbours(doc_id, window)),
                   default=(0.0, ""))
        added = weight * best[0] if best[0] > 0 else 0.0
        if added > 0:
            lifts[doc_id] = ContextLift(own, added, best[1])
        if own + added > 0 or doc_id in scores:
            lifted[doc_id] = own + added
    return lifted, lifts


def with_context(store: MemoryStore, rankings: Mapping[str, Sequence[Candidate]],
                 predicate: str, *, window: int, weight: float,
                 query_vector: Sequence[float] | None,
                 statuses: Collection[str] | None = None
                 ) -> tuple[dict[str, tuple[Candidate, ...]], dict[str, dict[str, ContextLift]]]:
    """The vector and BM25 rankings re-ranked with session context (see the module doc);
    other engines unchanged. Returns the rankings and, per engine, the lifts (memory id ->
    `ContextLift`). `statuses`: the filter behind `predicate` asks for these statuses and
    nothing the candidates' neighbours do not share with them (see `_neighbourhood`).

    Both engines score one pool: every memory either returned, and their neighbours. The
    vector engine knows each one's cosine; BM25 scores those it did not return 0, so they
    enter its ranking only when a neighbour lifts them.
    """
    engines = [e for e in CONTEXT_ENGINES if e in rankings]
    out = {e: tuple(r) for e, r in rankings.items()}
    if window <= 0 or weight <= 0 or not engines:
        return out, {}
    ranked = list(dict.fromkeys(c.doc_id for e in engines for c in rankings[e]))
    row_of = {c.doc_id: c.row_id for e in engines for c in rankings[e]
              if c.row_id is not None}
    seeds = list(dict.fromkeys(c.doc_id for e in engines
                               for c in rankings[e][:CONTEXT_SEEDS]))
    near = _neighbourhood(store, predicate, seeds, ranked, row_of, statuses)
    sessions, located = near.sessions, near.rows
    if not sessions.position:
        return out, {}
    pool = dict.fromkeys(ranked)
    for doc_id in seeds:
        pool.update(dict.fromkeys(sessions.neighbours(doc_id, window)))
    all_lifts: dict[str, dict[str, ContextLift]] = {}
    for engine in engines:
        scores = {c.doc_id: c.score for c in rankings[engine]}
        if engine == "vector" and query_vector is not None:
            scores.update(_cosines(store, located, [d for d in pool if d not in scores],
                                   query_vector))
        lifted, lifts = lift(scores, sessions, window, weight)
        ordered = sorted(((d, v) for d, v in lifted.items() if d in pool),
                         key=lambda p: (-p[1], p[0]))
        out[engine] = tuple(Candidate(d, r, v, located.get(d))
                            for r, (d, v) in enumerate(ordered, 1))
        all_lifts[engine] = {d: x for d, x in lifts.items() if d in pool}
    return out, all_lifts
