"""The embedding map (docs/design/map.md): where each memory sits when its vector is laid
out in 2-D or 3-D, cached on disk, with queries placed on it; clusters of the layout with
their labels; near-duplicate pairs.

* `project` (layout.py): UMAP (cosine) over the filtered tenant's embedded memories, as a
  `Projection` (a polars frame of id, x, y[, z] and the memory fields, plus the fitted
  model); `MapParams` (params.py) holds its settings, the sample rule for large stores
  among them (sampling.py).
* `ProjectionCache` (cache.py): computed maps on disk, keyed by store, tenant, table
  version, filter, parameters and model; written atomically, pruned, never stale.
* `place_query` (overlay.py): where a query lands, and which of its search hits are on the
  map (`QueryPlacement`).
* `cluster_layout` (clusters.py): HDBSCAN on the 2-D layout, each cluster labelled, sized,
  centred and described by its commonest memory types and projects; noise its own group.
* `cluster_labels` (labels.py): class-based TF-IDF labels ("lancedb · index · vector").
* `near_duplicates`, `near_duplicate_pairs` (duplicates.py): pairs with cosine >= a
  threshold whose contents differ, by a blocked numpy product.

UMAP is umap-learn's (reducer.py), fitted from the exact neighbours memlens finds
(neighbours.py); numba compiles it once per machine into memlens' cache folder (engine.py),
in a background process after `memlens init` or `serve` (`start_map_warm`, warm.py), and
`map_engine_state` says whether that is done. umap-learn, scikit-learn and scipy load when a
function runs, not on import.
"""

from __future__ import annotations

from memory_core.projection.cache import ProjectionCache
from memory_core.projection.clusters import Clusters, cluster_layout
from memory_core.projection.duplicates import near_duplicate_pairs, near_duplicates
from memory_core.projection.engine import EngineState, map_engine_state
from memory_core.projection.labels import cluster_labels
from memory_core.projection.layout import project
from memory_core.projection.overlay import place_query
from memory_core.projection.params import MapParams
from memory_core.projection.result import Projection, QueryPlacement
from memory_core.projection.warm import start_map_warm

__all__ = ["Clusters", "EngineState", "MapParams", "Projection", "ProjectionCache",
           "QueryPlacement", "cluster_labels", "cluster_layout", "map_engine_state",
           "near_duplicate_pairs", "near_duplicates", "place_query", "project",
           "start_map_warm"]
