"""The Map page's map: computing the layout with a progress bar, gathering what the figure
overlays (clusters, decay, near-duplicates, a placed query) and drawing it as a selectable
chart, with a caption saying what is on it."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import md
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.map.controls import View
from memlens_app.widgets.map.data import (
    MapKey,
    get_clusters,
    get_composite,
    get_consolidation,
    get_duplicates,
    get_placement,
    get_projection,
    map_key,
    today,
    versions,
)
from memlens_app.widgets.map.selection import CHART_KEY
from memory_core import (
    Clusters,
    Filter,
    MapParams,
    MemlensError,
    MemoryStore,
    Projection,
    QueryPlacement,
    map_engine_state,
    map_figure,
    overlay_counts,
    with_colour_columns,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Overlays:
    """What the figure draws over the points; None where not asked for or not available."""

    clusters: Clusters | None
    composite: pl.DataFrame | None
    pairs: pl.DataFrame | None
    placement: QueryPlacement | None
    #: memory id -> consolidated, candidate or neither (when the points are coloured by it)
    consolidation: dict[str, str] | None = None


#: What the bar says while this machine's first compile of the map engine runs.
COMPILING = "Compiling the map engine once for this machine (about a minute)"
#: About how long that compile takes, for its bar (which stops short of full until done).
COMPILE_S = 60.0


def load_map(store: MemoryStore, flt: Filter, params: MapParams) -> Projection | None:
    """The layout, with a progress bar while it is computed (None after an error, shown);
    while the map engine compiles (a machine's first map), the bar says so with the
    seconds it has run."""
    bar = st.empty()
    compiling_since: list[float] = []

    def progress(stage: str, fraction: float) -> None:
        if stage.startswith("compiling"):
            if not compiling_since:
                state = map_engine_state()
                compiling_since.append(state.since or time.time())
            seconds = max(0.0, time.time() - compiling_since[0])
            bar.progress(min(0.95, seconds / COMPILE_S),
                         text=f"{COMPILING}: {seconds:.0f} s so far…")
            return
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"Map: {stage}…")

    if (state := map_engine_state()).state == "compiling":  # said before the vectors load
        compiling_since.append(state.since or time.time())
        progress("compiling", 0.0)

    try:
        return get_projection(store, flt, params, progress)
    except MemlensError as exc:
        show_error(exc)
        return None
    finally:
        bar.empty()


def _shown_on_error(compute: Callable[[], T]) -> T | None:
    """`compute()`, or None after an error (shown): one overlay failing leaves the others."""
    try:
        return compute()
    except MemlensError as exc:
        show_error(exc)
        return None


def overlays(store: MemoryStore, projection: Projection, flt: Filter, view: View) -> Overlays:
    """Clusters (always: the labels, the table and the picker use them), the decay
    composite or the consolidation classes when the points are coloured by them,
    near-duplicate pairs when their toggle is on, and the query's placement when one is
    typed."""
    key: MapKey = map_key(store, flt, projection.params)
    stamp = versions(store)
    clusters = _shown_on_error(lambda: get_clusters(key, view.min_cluster, projection.frame))
    composite = pairs = placement = consolidation = None
    if view.colour == "composite":
        composite = _shown_on_error(
            lambda: get_composite(store.uri, store.tenant, stamp, flt, today()))
    if view.colour == "consolidation":
        ids = tuple(projection.frame["id"].to_list())
        consolidation = _shown_on_error(
            lambda: get_consolidation(store.uri, store.tenant, stamp, ids))
    if view.duplicates:
        pairs = _shown_on_error(
            lambda: get_duplicates(store.uri, store.tenant, store.version, flt,
                                   view.threshold))
    if view.query:
        placement = _shown_on_error(
            lambda: get_placement(key, stamp, flt, view.query, view.k, projection))
    return Overlays(clusters, composite, pairs, placement, consolidation)


def draw(projection: Projection, view: View, extra: Overlays) -> Mapping[str, Any]:
    """The chart (points, box and lasso selection rerun the page); returns its selection
    state."""
    colour = view.colour
    if colour == "cluster" and extra.clusters is None or (
            colour == "composite" and extra.composite is None) or (
            colour == "consolidation" and extra.consolidation is None):
        colour = "memory_type"
    frame = with_colour_columns(
        projection.frame, as_of=today(), decay=extra.composite,
        clusters=extra.clusters.assignments if extra.clusters is not None else None,
        consolidation=extra.consolidation)
    labels = extra.clusters.table if view.labels and extra.clusters is not None else None
    fig = map_figure(frame, colour=colour, labels=labels, links=extra.pairs,
                     query=extra.placement)
    return st.plotly_chart(fig, key=CHART_KEY, on_select="rerun",
                           selection_mode=("points", "box", "lasso"),
                           config={"scrollZoom": True, "displaylogo": False})


def caption(projection: Projection, extra: Overlays) -> None:
    """A line on what the map shows (points, memories left out, cache, notes) and, with a
    query, where its hits are."""
    parts = [f"{projection.frame.height} memories"]
    if projection.skipped_unembedded:
        parts.append(f"{projection.skipped_unembedded} without a vector left out")
    if projection.fitted < projection.frame.height:
        parts.append(f"UMAP fitted on a sample of {projection.fitted}, the rest placed")
    params = projection.params
    parts.append(f"UMAP n_neighbors {params.n_neighbors}, min_dist {params.min_dist:g}, "
                 f"seed {params.seed}")
    parts.append("read from the map cache" if projection.from_cache
                 else "fitted by this server")
    parts += list(projection.notes)
    st.caption(md(" · ".join(parts)))
    if extra.consolidation is not None:
        counts = overlay_counts(extra.consolidation)
        st.caption(md(f"Consolidation: {counts['candidate']} in a candidate still to review "
                      f"(orange; Curate → Consolidate lists them), {counts['consolidated']} "
                      f"consolidated (a reflection or its source), {counts['neither']} "
                      f"neither"))
    placement = extra.placement
    if placement is not None:
        off = len(placement.hit_ids) - len(placement.hits_on_map)
        st.caption(md(f"Query: ★ where it lands; its top {len(placement.hit_ids)} hits ringed "
                      f"and numbered by rank" + (f" ({off} not on this map: outside the "
                                                 f"filter or without a vector)" if off else "")))
