"""The Map page's controls: the UMAP knobs (in an expander), what the points are coloured by,
the overlays (cluster labels, near-duplicate links) and the query box."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from memory_core import MAP_COLOURS, MapParams

DEFAULTS = MapParams()


@dataclass(frozen=True)
class View:
    """What the figure shows besides the layout."""

    colour: str
    labels: bool
    #: HDBSCAN's smallest cluster; None: the engine's rule, max(10, n // 200)
    min_cluster: int | None
    duplicates: bool
    threshold: float
    query: str
    k: int


def umap_knobs() -> MapParams:
    """n_neighbors, min_dist and seed in an expander (UMAP's defaults at first)."""
    with st.expander("Layout (UMAP)"):
        st.caption("Changing a knob computes a new map (a few seconds on the demo store). "
                   "Maps are cached: going back to earlier values is instant.")
        left, middle, right = st.columns(3)
        neighbours = left.slider(
            "n_neighbors", 2, 100, DEFAULTS.n_neighbors, key="map_n_neighbors",
            help="How many neighbours shape each point's place: small values split topics "
                 "finely, large ones keep the store's overall shape.")
        min_dist = middle.slider(
            "min_dist", 0.0, 0.99, DEFAULTS.min_dist, 0.01, key="map_min_dist",
            help="How tightly points may pack: small values make dense islands.")
        seed = right.number_input(
            "Seed", 0, 2**32 - 1, DEFAULTS.seed, key="map_seed",
            help="The same seed and memories give the same map, point for point.")
    return MapParams(n_neighbors=int(neighbours), min_dist=float(min_dist), seed=int(seed))


def view_controls() -> View:
    """The colour switch, the query box, and the overlay controls (cluster labels and
    size, near-duplicate links and their threshold)."""
    colour = st.segmented_control(
        "Colour by", list(MAP_COLOURS), format_func=MAP_COLOURS.__getitem__,
        default="memory_type", required=True, key="map_colour") or "memory_type"
    query_col, k_col = st.columns([6, 1])
    query = query_col.text_input(
        "Query", key="map_query", placeholder="e.g. why did we move session caching off "
        "Redis? (where it lands on the map, and its top hits)")
    k = int(k_col.number_input("Hits", 1, 50, 10, key="map_k"))
    labels_col, size_col, dup_col, threshold_col = st.columns([1.2, 1.4, 1.4, 2],
                                                              vertical_alignment="bottom")
    labels = labels_col.toggle("Cluster labels", value=True, key="map_labels")
    size = int(size_col.number_input(
        "Min cluster size", 0, 5000, 0, step=5, key="map_min_cluster",
        help="HDBSCAN's smallest cluster, on the map's 2-D layout. 0: automatic, 0.5% of the "
             "memories (at least 10). Smaller values find more, finer topics."))
    duplicates = dup_col.toggle("Near-duplicates", key="map_duplicates",
                                help="Draw a line between memories whose vectors are "
                                     "nearly the same (cosine at least the threshold) but "
                                     "whose text differs; the pairs are listed below.")
    threshold = threshold_col.slider("Near-duplicate cosine ≥", 0.80, 1.0, 0.95, 0.01,
                                     key="map_threshold", disabled=not duplicates)
    return View(colour, bool(labels), size if size >= 2 else None, bool(duplicates),
                float(threshold), query.strip(), k)
