"""Session context: a memory is scored together with its neighbours in the same session.

In a conversation the turn that answers a question often shares few words with it, while the
turn next to it does ("When did Caroline go to the support group?" matches the question turn,
the answer is the reply). A memory's neighbours `N(d)` are the memories up to `window`
positions away in the same session (ordered by `created_at`, then id) *and of the same memory
type*, in a run that is a dialogue:

* a session interleaves kinds of memory (a summary, decisions, observations), and only a run
  of one kind (dialogue turns) is a conversation whose neighbours share referents;
* a run one agent wrote alone (its stream of observations, a list of decisions) is records
  written to stand alone, so it is not a dialogue (`is_dialogue`): measured on the demo set,
  whose sessions are such runs, context there cost nDCG@10 0.597 -> 0.574 before this rule.
  A run with two or more agents, or one that names none, is treated as a dialogue.

Memories without such neighbours are scored as before. The engines use them thus:

* BM25 (`bm25_context` "window", the default) scores each memory of the candidate pool by
  BM25 over the text of its window, itself and its neighbours, whose words count `weight`
  times (window_bm25.py): the words of a question spread over a few turns add up there.
  "lift" treats BM25 like the vector engine;
* the vector engine lifts a memory by a share of its best neighbour's cosine:
  `s'(d) = s(d) + weight * max_{n in N(d)} s(n)`.

The mechanism is computed at query time, not an indexed context column: it needs no write on
import, edit or curation (nothing can go stale), works on any store as it is, and its cost is
one small read per search: the session order (`store.queries.session_order()`, kept per table
version) names the memories within `CONTEXT_SPAN` of the candidates, and one read by row id
under the filter takes their texts and vectors.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np

from memory_core.model.filters import Filter
from memory_core.retrieval.engines import Candidate
from memory_core.retrieval.window_bm25 import Analyzer, window_bm25
from memory_core.store import MemoryStore
from memory_core.store.found import vector_arrays

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


def is_dialogue(agents: Collection[int]) -> bool:
    """Whether a run of memories whose agents are `agents` (codes, -1 for none) is a
    dialogue, so that its members share referents: two or more agents wrote it, or it does
    not say who did. A run one agent wrote alone (a stream of its observations, a list of
    decisions) is records meant to stand alone, and its neighbours do not lift each other.

    >>> is_dialogue({0, 1}), is_dialogue({-1}), is_dialogue({3})
    (True, True, False)
    """
    named = {a for a in agents if a >= 0}
    return len(named) != 1 or -1 in agents


@dataclass(frozen=True)
class _Neighbourhood:
    """The sessions around the seeds, and the row id of every memory in them or ranked."""

    sessions: _Session
    rows: dict[str, int]


def _neighbourhood(store: MemoryStore, flt: Filter, seeds: Sequence[str],
                   ranked: Sequence[str], row_of: Mapping[str, int],
                   statuses: Collection[str] | None) -> _Neighbourhood:
    """The memories `flt` admits in the same session and type as a seed, within
    `CONTEXT_SPAN` of it, ordered by (created_at, id) within each contiguous range (a
    position's neighbours are taken within one range only).

    The session order (`store.queries.session_order()`, cached per table version) names the rows in
    the ranges. When the filter asks for `statuses` and nothing the seeds do not already
    share (the tenant, the session, the type), it decides alone; otherwise the filter's
    columns, taken by row id, say which rows it admits (of those no engine returned: an
    engine's rows matched it already).
    """
    located = dict(row_of)
    missing = [d for d in (*seeds, *ranked) if d not in located]
    if missing:
        located.update(store.rows.locate(missing, flt.to_predicate(store.tenant)))
    around = store.queries.session_order().around(
        {located[d]: d for d in seeds if d in located}, CONTEXT_SPAN, statuses)
    members = list(around.rows.items())
    if statuses is None and members:
        # the engines' rows matched the filter already: only the others are read
        admitted = {(row, d) for d, row in row_of.items()}
        unknown = [row for row, m in members if (row, m.id) not in admitted]
        if unknown:
            admitted.update(_admitted(store, unknown, flt))
        members = [(row, m) for row, m in members if (row, m.id) in admitted]
    runs: dict[tuple[str, str], list[str]] = {}
    authors: dict[tuple[str, str], set[int]] = {}
    for row, m in sorted(members, key=lambda rm: (rm[1].created, rm[1].id)):
        span = around.ranges[m.range]
        key = (f"{span.session_id}#{m.range}", span.memory_type)
        runs.setdefault(key, []).append(m.id)
        authors.setdefault(key, set()).add(m.agent)
        located[m.id] = row
    runs = {key: run for key, run in runs.items() if is_dialogue(authors[key])}
    position = {doc: (key, i) for key, run in runs.items() for i, doc in enumerate(run)}
    return _Neighbourhood(_Session(position, runs), located)


def _admitted(store: MemoryStore, rows: Sequence[int], flt: Filter) -> set[tuple[int, str]]:
    """(row id, memory id) of the rows at `rows` that `flt` admits: the filter's columns
    taken by row id and checked in Python (`Filter.admits`), which is cheaper than a query
    by row id under its predicate on a large store."""
    read = store.rows.take(rows, list(dict.fromkeys(["id", *flt.columns()]))).to_pylist()
    return {(r["_rowid"], r["id"]) for r, ok in zip(read, flt.admits(read, store.tenant),
                                                     strict=True) if ok}


@dataclass(frozen=True)
class _PoolRows:
    """The pool's texts and the query's cosine with each of its vectors, by memory id."""

    texts: dict[str, str]
    cosines: dict[str, float]


def _cosine_map(ids: Sequence[str], vectors: Sequence[Any],
                query_vector: Sequence[float]) -> dict[str, float]:
    """Cosine of the query with each vector (None vectors skipped)."""
    kept = [(i, v) for i, v in zip(ids, vectors, strict=True) if v is not None]
    if not kept:
        return {}
    matrix = np.stack([v for _, v in kept]).astype(np.float32, copy=False)
    query = np.asarray(query_vector, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    sims = matrix @ query / np.where(norms > 0, norms, 1.0)
    return {i: float(s) for (i, _), s in zip(kept, sims, strict=True)}


def _read_pool(store: MemoryStore, rows: Mapping[str, int], text_ids: Collection[str],
               vector_ids: Collection[str], query_vector: Sequence[float] | None,
               known: Sequence[Candidate]) -> _PoolRows:
    """The contents of `text_ids` and the cosine of the query with each of `vector_ids`
    that has a vector: what the `known` candidates' queries returned, the rest in one read
    by row id (`rows`: id -> row id); a row a write moved since is read again by its id."""
    vector_ids = vector_ids if query_vector is not None else ()
    texts = {c.doc_id: c.content for c in known if c.content is not None}
    vectors = {c.doc_id: c.vector for c in known if c.vector is not None}
    missing_text = [i for i in text_ids if i not in texts]
    missing_vector = [i for i in vector_ids if i not in vectors]
    wanted = {rows[i]: i for i in (*missing_text, *missing_vector) if i in rows}
    if wanted:
        columns = ["id", *(["content"] if missing_text else []),
                   *(["vector"] if missing_vector else [])]
        read = store.rows.take(list(wanted), columns)
        ids = read["id"].to_pylist()
        kept = [wanted.get(r) == i for r, i in zip(read["_rowid"].to_pylist(), ids,
                                                  strict=True)]
        if missing_text:
            texts.update((i, c or "") for i, c, ok in zip(
                ids, read["content"].to_pylist(), kept, strict=True) if ok)
        if missing_vector:
            vectors.update((i, v) for i, v, ok in zip(
                ids, vector_arrays(read["vector"]), kept, strict=True) if ok and v is not None)
        got = {i for i, ok in zip(ids, kept, strict=True) if ok}
        moved = [i for i in wanted.values() if i not in got]
        if moved:  # a write moved their rows since the engines ran: read them by id
            for doc_id, memory in store.get_many(moved, with_vectors=bool(missing_vector)
                                                 ).items():
                texts.setdefault(doc_id, memory.content)
                if memory.vector is not None:
                    vectors.setdefault(doc_id, np.asarray(memory.vector, dtype=np.float32))
    cosines: dict[str, float] = {}
    if query_vector is not None and vector_ids:
        have = [i for i in vector_ids if i in vectors]
        cosines = _cosine_map(have, [vectors[i] for i in have], query_vector)
    return _PoolRows(texts, cosines)


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


_ANALYZERS: weakref.WeakKeyDictionary[MemoryStore, tuple[int | None, Analyzer]] = \
    weakref.WeakKeyDictionary()


def _analyzer(store: MemoryStore) -> Analyzer:
    """The analyzer of the store's full-text settings, read once per table version (the
    session order's: a search has just brought it up to date)."""
    version = store.queries.session_order().version
    known = _ANALYZERS.get(store)
    if known is None or known[0] != version:
        known = (version, Analyzer.from_settings(store.fts.settings()))
        _ANALYZERS[store] = known
    return known[1]


def _window_ranking(query: str, windows: Mapping[str, Sequence[str]],
                    returned: Sequence[Candidate], weight: float, texts: Mapping[str, str],
                    analyzer: Analyzer) -> tuple[list[tuple[str, float]], dict[str, ContextLift]]:
    """BM25 over each pool memory's session window (`windows`: id -> its neighbours;
    window_bm25.py), best first, and what the neighbours added; memories BM25 returned that
    no window term matches come last."""
    scores = window_bm25(query, texts, windows, analyzer, weight=weight)
    ordered = sorted(((d, s.score) for d, s in scores.items()), key=lambda p: (-p[1], p[0]))
    ordered += [(c.doc_id, 0.0) for c in returned if c.doc_id not in scores]
    lifts = {d: ContextLift(s.own, s.added, s.neighbour) for d, s in scores.items()
             if s.added > 0 and s.neighbour}
    return ordered, lifts


def with_context(store: MemoryStore, rankings: Mapping[str, Sequence[Candidate]],
                 flt: Filter, *, window: int, weight: float,
                 query_vector: Sequence[float] | None,
                 statuses: Collection[str] | None = None, query: str | None = None,
                 bm25_context: str = "window"
                 ) -> tuple[dict[str, tuple[Candidate, ...]], dict[str, dict[str, ContextLift]]]:
    """The vector and BM25 rankings re-ranked with session context (see the module doc);
    other engines unchanged. Returns the rankings and, per engine, the lifts (memory id ->
    `ContextLift`). `statuses`: `flt` asks for these statuses and nothing the candidates'
    neighbours do not share with them (see `_neighbourhood`).

    Both engines score one pool: every memory either returned, and their neighbours. The
    vector engine knows each one's cosine and is lifted by its best neighbour's. BM25 with
    `bm25_context` "window" (and the `query` text) scores each pool memory by BM25 over its
    session window (window_bm25.py); with "lift" it is lifted like the vector engine, a
    memory it did not return scoring 0, so that one enters its ranking only when a neighbour
    lifts it.
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
    near = _neighbourhood(store, flt, seeds, ranked, row_of, statuses)
    sessions, located = near.sessions, near.rows
    if not sessions.position:
        return out, {}
    pool = dict.fromkeys(ranked)
    for doc_id in seeds:
        pool.update(dict.fromkeys(sessions.neighbours(doc_id, window)))
    windowed = "bm25" in engines and bm25_context == "window" and bool(query and query.strip())
    windows = {d: sessions.neighbours(d, window) for d in pool} if windowed else {}
    text_ids = {n for d, ns in windows.items() for n in (d, *ns)}
    scored = {c.doc_id for c in rankings.get("vector", ())}
    read = _read_pool(store, located, text_ids,
                      [d for d in pool if d not in scored] if "vector" in engines else [],
                      query_vector, [c for e in engines for c in rankings[e]])
    all_lifts: dict[str, dict[str, ContextLift]] = {}
    for engine in engines:
        if engine == "bm25" and windowed:
            ordered, lifts = _window_ranking(query or "", windows, rankings[engine], weight,
                                             read.texts, _analyzer(store))
        else:
            scores = {c.doc_id: c.score for c in rankings[engine]}
            if engine == "vector":
                scores.update(read.cosines)
            lifted, lifts = lift(scores, sessions, window, weight)
            ordered = sorted(((d, v) for d, v in lifted.items() if d in pool),
                             key=lambda p: (-p[1], p[0]))
        out[engine] = tuple(Candidate(d, r, v, located.get(d))
                            for r, (d, v) in enumerate(ordered, 1))
        all_lifts[engine] = {d: x for d, x in lifts.items() if d in pool}
    return out, all_lifts
