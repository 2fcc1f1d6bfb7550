"""The queries an impact preview measures with: given ones, the store's saved query set, or
the store's recent recalls (what each sent then counts as relevant).

A store's saved query set is an NDJSON query set (`memory_core.evaluation.queryset`) kept
in the store's control folder as `QUERY_SET_FILE` (the store's folder for a local store);
seeding the demo corpus saves the demo's set there, `save_query_set` saves any other.
Without one, the newest `RECENT_RECALLS` distinct recalls (query and filter) become queries
whose graded-relevant set is the memories the recall sent, each grade 1: pseudo-relevance,
so the metrics then say how much of what agents were given the store still returns, not
whether it was right.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memory_core.evaluation.queryset import Query, load_queries, parse_query
from memory_core.model.errors import ImpactError, InvalidFilterError, QuerySetError
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore
from memory_core.store.lock import control_folder

QUERY_SET_FILE = "memlens-queries.ndjson"
#: How many of the newest distinct recalls stand in for a query set.
RECENT_RECALLS = 200

SAVED, RECALLS, GIVEN = "saved query set", "recent recalls", "query set given"


@dataclass(frozen=True)
class ImpactQueries:
    """The queries of a preview and where they came from (`source`: SAVED, RECALLS or
    GIVEN; `path` for a file)."""

    queries: tuple[Query, ...]
    source: str
    path: str | None = None

    @property
    def pseudo_relevance(self) -> bool:
        """Whether the relevant sets are what past recalls sent (not judgments)."""
        return self.source == RECALLS

    def describe(self) -> str:
        """One line: how many queries, from where, and what counts as relevant."""
        where = f" ({self.path})" if self.path else ""
        judged = ("relevant = what each recall sent then (pseudo-relevance, not judgments)"
                  if self.pseudo_relevance else "relevant = the set's judgments")
        return f"{len(self.queries)} queries from the {self.source}{where}; {judged}"


def saved_query_set_path(store: MemoryStore) -> Path:
    """Where the store's saved query set lives (it may not exist)."""
    return control_folder(store.tables.uri, store.model_cache) / QUERY_SET_FILE


def save_query_set(store: MemoryStore, source: str | Path) -> Path:
    """Keep the query set at `source` (checked first) as the store's saved query set."""
    load_queries(source)  # refuses a bad file before anything is written
    target = saved_query_set_path(store)
    store.check_writable("saving a query set")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def recall_queries(store: MemoryStore, *, limit: int = RECENT_RECALLS) -> list[Query]:
    """The newest `limit` distinct (query, filter) recalls of the tenant as queries, each
    relevant set the memories that recall sent (grade 1). Recalls without a query text or
    that sent nothing are left out."""
    import json

    from memory_core.agents.recalls import past_recalls

    seen: set[str] = set()
    out: list[Query] = []
    for recall in past_recalls(store):
        if not recall.query.strip() or not recall.memory_ids:
            continue
        key = json.dumps([recall.query, recall.filter], sort_keys=True, default=str)
        if key in seen:
            continue
        seen.add(key)
        doc = {"qid": f"recall-{len(out) + 1:03d}", "query": recall.query,
               "relevant": dict.fromkeys(recall.memory_ids, 1),
               "filter": {k: v for k, v in recall.filter.items() if k != "tenant"} or None}
        try:
            out.append(parse_query(doc, f"recall {recall.recall_id or recall.at.isoformat()}"))
        except (QuerySetError, InvalidFilterError):
            continue  # a filter of an older memlens that no longer parses: not measurable
        if len(out) >= limit:
            break
    return out


#: What `impact(queries=...)` takes: queries, a query set's path, resolved ones, or None.
QueriesArg = Sequence[Query] | str | Path | ImpactQueries | None


def impact_queries(store: MemoryStore, queries: QueriesArg = None) -> ImpactQueries:
    """The queries a preview measures with: `queries` when given (a list, or the path of a
    query set), else the store's saved query set, else its recent recalls; an
    `ImpactError` when there are none."""
    if isinstance(queries, ImpactQueries):
        return queries
    if isinstance(queries, str | Path):
        return ImpactQueries(tuple(load_queries(queries)), GIVEN, str(queries))
    if queries is not None:
        if not queries:
            raise ImpactError("the query set given for the impact preview is empty; give "
                              "at least one query")
        return ImpactQueries(tuple(queries), GIVEN)
    saved = saved_query_set_path(store)
    if saved.is_file():
        return ImpactQueries(tuple(load_queries(saved)), SAVED, str(saved))
    recalled = recall_queries(store)
    if recalled:
        return ImpactQueries(tuple(recalled), RECALLS)
    raise ImpactError(
        f"no queries to measure the impact with: tenant {shown(store.tenant)} has no saved "
        f"query set ({saved}) and no recall events; give a query set (--impact-queries "
        f"FILE) or save one with memory_core.impact_preview.queries.save_query_set")
