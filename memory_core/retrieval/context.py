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
three small reads per search (the candidates' sessions and times, the memories within
`CONTEXT_SPAN` of them, then the neighbours' vectors).

For the vector engine a neighbour's score is its exact cosine with the query; for BM25 a
memory outside the engine's top-m scores 0 (below everything it returned).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pyarrow as pa

from memory_core.filters import in_chunks, sql_in, sql_string, sql_time
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


def _rows(store: MemoryStore, where: str, ids_column: str, values: Sequence[str],
          columns: list[str]) -> pa.Table:
    parts = [store.bulk.scan(columns, f"({where}) AND {sql_in(ids_column, chunk)}")
             for chunk in in_chunks(list(values))]
    return pa.concat_tables(parts) if parts else pa.table({c: [] for c in columns})


#: How far in time (each side of a candidate) its neighbours are looked for: turns of one
#: conversation are seconds to minutes apart. Bounding the read by time keeps its cost flat
#: however long a session grows (a session of thousands of memories is read a few rows at a
#: time); memories further apart than this are not neighbours.
CONTEXT_SPAN = timedelta(hours=1)
#: The best this many candidates of each engine have their neighbours looked up: measured on
#: LoCoMo dev and the demo set, 20 ranks as well as every candidate (50) to within 0.003
#: recall@5, and halves the reads.
CONTEXT_SEEDS = 20
#: Time ranges per query (one OR of ranges per read).
_RANGES_PER_READ = 64


def _ranges(seeds: list[dict[str, Any]]) -> list[tuple[str, str, datetime, datetime]]:
    """Per (session, type), the time ranges `CONTEXT_SPAN` around the seeds, overlaps merged."""
    spans: dict[tuple[str, str], list[tuple[datetime, datetime]]] = {}
    for row in seeds:
        at: datetime = row["created_at"]
        key = (str(row["session_id"]), str(row["memory_type"]))
        spans.setdefault(key, []).append((at - CONTEXT_SPAN, at + CONTEXT_SPAN))
    out = []
    for (session, kind), pairs in spans.items():
        pairs.sort()
        start, end = pairs[0]
        for lo, hi in pairs[1:]:
            if lo <= end:
                end = max(end, hi)
            else:
                out.append((session, kind, start, end))
                start, end = lo, hi
        out.append((session, kind, start, end))
    return out


def _sessions(store: MemoryStore, predicate: str, seeds: Sequence[str]) -> _Session:
    """The memories around `seeds` in time, by (session, type, time range), ordered, under
    `predicate`: a position's neighbours are taken within one contiguous range only."""
    own = [r for r in _rows(store, predicate, "id", seeds,
                            ["id", "session_id", "memory_type", "created_at"]).to_pylist()
           if r["session_id"]]
    if not own:
        return _Session({}, {})
    ranges = _ranges(own)
    members: dict[tuple[str, str], list[str]] = {}
    columns = ["id", "session_id", "memory_type", "created_at"]
    for at in range(0, len(ranges), _RANGES_PER_READ):
        part = ranges[at:at + _RANGES_PER_READ]
        clauses = " OR ".join(
            f"(session_id = {sql_string(s)} AND memory_type = {sql_string(k)} AND "
            f"created_at >= {sql_time(lo)} AND created_at <= {sql_time(hi)})"
            for s, k, lo, hi in part)
        rows = store.bulk.scan(columns, f"({predicate}) AND ({clauses})").to_pylist()
        for row in sorted(rows, key=lambda r: (r["created_at"], r["id"])):
            for index, (s, k, lo, hi) in enumerate(part, start=at):
                if (row["session_id"], row["memory_type"]) == (s, k) and \
                        lo <= row["created_at"] <= hi:
                    members.setdefault((f"{s}#{index}", k), []).append(row["id"])
                    break
    position = {doc: (key, i) for key, run in members.items() for i, doc in enumerate(run)}
    return _Session(position, members)


def _cosines(store: MemoryStore, predicate: str, ids: Sequence[str],
             query_vector: Sequence[float]) -> dict[str, float]:
    """Cosine of the query with each of `ids` that has a vector."""
    if not ids:
        return {}
    rows = _rows(store, predicate, "id", ids, ["id", "vector"])
    kept = [(i, v) for i, v in zip(rows["id"].to_pylist(), rows["vector"].to_pylist(),
                                   strict=True) if v is not None]
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
                 query_vector: Sequence[float] | None
                 ) -> tuple[dict[str, tuple[Candidate, ...]], dict[str, dict[str, ContextLift]]]:
    """The vector and BM25 rankings re-ranked with session context (see the module doc);
    other engines unchanged. Returns the rankings and, per engine, the lifts (memory id ->
    `ContextLift`).

    Both engines score one pool: every memory either returned, and their neighbours. The
    vector engine knows each one's cosine; BM25 scores those it did not return 0, so they
    enter its ranking only when a neighbour lifts them.
    """
    engines = [e for e in CONTEXT_ENGINES if e in rankings]
    out = {e: tuple(r) for e, r in rankings.items()}
    if window <= 0 or weight <= 0 or not engines:
        return out, {}
    ranked = list(dict.fromkeys(c.doc_id for e in engines for c in rankings[e]))
    seeds = list(dict.fromkeys(c.doc_id for e in engines
                               for c in rankings[e][:CONTEXT_SEEDS]))
    sessions = _sessions(store, predicate, seeds)
    if not sessions.position:
        return out, {}
    pool = dict.fromkeys(ranked)
    for doc_id in seeds:
        pool.update(dict.fromkeys(sessions.neighbours(doc_id, window)))
    all_lifts: dict[str, dict[str, ContextLift]] = {}
    for engine in engines:
        scores = {c.doc_id: c.score for c in rankings[engine]}
        if engine == "vector" and query_vector is not None:
            scores.update(_cosines(store, predicate, [d for d in pool if d not in scores],
                                   query_vector))
        lifted, lifts = lift(scores, sessions, window, weight)
        ordered = sorted(((d, v) for d, v in lifted.items() if d in pool),
                         key=lambda p: (-p[1], p[0]))
        out[engine] = tuple(Candidate(d, r, v) for r, (d, v) in enumerate(ordered, 1))
        all_lifts[engine] = {d: x for d, x in lifts.items() if d in pool}
    return out, all_lifts
