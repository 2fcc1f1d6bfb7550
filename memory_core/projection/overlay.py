"""`place_query`: where a query lands on a map, and which of its search hits the map shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_core.model.errors import MapError
from memory_core.model.untrusted import shown
from memory_core.projection.result import Projection, QueryPlacement

if TYPE_CHECKING:
    from memory_core.model.filters import Filter
    from memory_core.retrieval.config import RankingConfig
    from memory_core.store import MemoryStore


def place_query(store: MemoryStore, projection: Projection, query: str, *, k: int = 10,
                config: RankingConfig | None = None, filter: Filter | None = None
                ) -> QueryPlacement:
    """Embed `query` with the store's model, place it on `projection` with the fitted
    model's `transform`, and run the store's default search (`search`, `config` when given)
    for the top `k` under `filter` (None: the whole tenant, active memories): `hit_ids`
    best first, `hits_on_map` those of them the map shows.

    The store must embed with the model the map was computed from (`ModelMismatchError`
    otherwise); without an embedder the query cannot be placed (`EmbedderUnavailableError`).

    Example: `place_query(store, project(store), "vector index recall").hits_on_map`.
    """
    from memory_core.model.errors import ModelMismatchError
    from memory_core.retrieval.search import search

    if not isinstance(query, str) or not query.strip():
        raise MapError(f"the query to place is empty ({shown(query)}); type a few words")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise MapError(f"k (hits to show) must be a whole number of at least 1, got "
                       f"{shown(k)}")
    if store.model_id != projection.model_id:
        raise ModelMismatchError(
            f"the map was computed from {projection.model_id} vectors but the store now "
            f"embeds with {store.model_id}; compute the map again")
    vector = store.embedder.embed_one(query)
    point = projection.place(vector)[0]
    results = search(store, query, filter, config, k)
    hit_ids = tuple(hit.memory.id for hit in results)
    shown_ids = set(projection.frame["id"].to_list())
    return QueryPlacement(query=query, x=float(point[0]), y=float(point[1]), hit_ids=hit_ids,
                          hits_on_map=tuple(i for i in hit_ids if i in shown_ids),
                          z=float(point[2]) if len(point) > 2 else None)
