"""The Map page's engine calls, cached by everything their answer depends on: store, tenant,
the memories table version (any write moves it), the filter and the parameters.

The layout is kept in a per-process memo (a `st.cache_resource` dict) rather than
`st.cache_data`: a `Projection` holds the fitted UMAP, which `st.cache_data` would pickle on
every hit, and computing it reports progress to a bar on the page, which a cached function
must not draw. The engine's own disk cache (`ProjectionCache`) makes a second process, or a
restarted server, read the map instead of fitting it again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime, time

import polars as pl
import streamlit as st

from memlens_app.widgets.common.state import get_store
from memory_core import (
    Clusters,
    Filter,
    MapParams,
    MemoryStore,
    Projection,
    QueryPlacement,
    cluster_layout,
    consolidation_overlay,
    decay_frame,
    near_duplicates,
    place_query,
    project,
)

#: Layouts kept per process (each a few hundred kB for the demo store, plus its UMAP).
KEEP_MAPS = 8
#: (uri, tenant, memories version, the filter's repr, params): what a layout depends on
#: (a `Filter` holds lists, so its repr stands for it in a dict key).
MapKey = tuple[str, str, int, str, MapParams]


class _Memo:
    """The newest `KEEP_MAPS` layouts, shared by every session of this process."""

    def __init__(self) -> None:
        self.maps: OrderedDict[MapKey, Projection] = OrderedDict()
        self.lock = threading.Lock()


@st.cache_resource(show_spinner=False)
def _memo() -> _Memo:
    return _Memo()


def today() -> datetime:
    """Midnight UTC today: the clock of ages and decay on the map. A clock that moved on
    every rerun would change the figure, and Streamlit drops a chart's selection when its
    figure changes."""
    return datetime.combine(datetime.now(UTC).date(), time(), tzinfo=UTC)


def map_key(store: MemoryStore, flt: Filter, params: MapParams) -> MapKey:
    return (store.uri, store.tenant, store.version, repr(flt), params)


def cached_projection(key: MapKey) -> Projection | None:
    """The layout for `key` if this process has it."""
    memo = _memo()
    with memo.lock:
        found = memo.maps.get(key)
        if found is not None:
            memo.maps.move_to_end(key)
        return found


def get_projection(store: MemoryStore, flt: Filter, params: MapParams,
                   progress: Callable[[str, float], None] | None = None) -> Projection:
    """The layout of the memories `flt` selects: from this process's memo, else from the
    engine (its disk cache, or UMAP with `progress` told each stage)."""
    key = map_key(store, flt, params)
    found = cached_projection(key)
    if found is not None:
        return found
    computed = project(store, flt, params=params, progress=progress)
    memo = _memo()
    with memo.lock:
        memo.maps[key] = computed
        while len(memo.maps) > KEEP_MAPS:
            memo.maps.popitem(last=False)
    return computed


@st.cache_data(show_spinner="Finding clusters…", max_entries=16)
def get_clusters(key: MapKey, min_cluster_size: int | None, _layout: pl.DataFrame
                 ) -> Clusters:
    """HDBSCAN clusters of the layout of `key`, labelled by c-TF-IDF."""
    return cluster_layout(_layout, min_cluster_size=min_cluster_size)


@st.cache_data(show_spinner="Looking for near-duplicates…", max_entries=16)
def get_duplicates(uri: str, tenant: str, version: int, flt: Filter, threshold: float
                   ) -> pl.DataFrame:
    """Near-duplicate pairs (cosine >= `threshold`) under `flt`."""
    return near_duplicates(get_store(uri, tenant), flt, threshold=threshold)


@st.cache_data(show_spinner="Computing decay…", max_entries=16)
def get_composite(uri: str, tenant: str, stamp: tuple[tuple[str, int], ...], flt: Filter,
                  as_of: datetime) -> pl.DataFrame:
    """Each memory's decay composite (id, composite) at `as_of`; `stamp` is every table's
    version (a recall or a cite moves the composite without touching the memories)."""
    frame = decay_frame(get_store(uri, tenant), flt, as_of=as_of)
    return frame.select("id", "composite")


@st.cache_data(show_spinner="Finding consolidation candidates…", max_entries=16)
def get_consolidation(uri: str, tenant: str, stamp: tuple[tuple[str, int], ...],
                      ids: tuple[str, ...]) -> dict[str, str]:
    """Each of `ids` as consolidated, candidate or neither; `stamp` is every table's version
    (a rejection or an edge moves the answer without touching the memories)."""
    return consolidation_overlay(get_store(uri, tenant), list(ids))


@st.cache_data(show_spinner="Placing the query…", max_entries=32)
def get_placement(key: MapKey, stamp: tuple[tuple[str, int], ...], flt: Filter, query: str,
                  k: int, _projection: Projection) -> QueryPlacement:
    """Where `query` lands on the layout of `key` and its top `k` hits under `flt` (the
    map's filter); `stamp` (every table's version) because search reads edges too."""
    uri, tenant, *_ = key
    return place_query(get_store(uri, tenant), _projection, query, k=k, filter=flt)


def versions(store: MemoryStore) -> tuple[tuple[str, int], ...]:
    """The store's table versions, (name, version) sorted."""
    return tuple(sorted(store.table_versions().items()))

