"""The embedding map (DESIGN.md section 12): where each memory sits when its vector is laid
out in 2-D or 3-D, cached on disk, with queries placed on it.

* `project` (layout.py): UMAP (cosine) over the filtered tenant's embedded memories, as a
  `Projection` (a polars frame of id, x, y[, z] and the memory fields, plus the fitted
  model); `MapParams` (params.py) holds its settings, the sample rule for large stores
  among them (sampling.py).
* `ProjectionCache` (cache.py): computed maps on disk, keyed by store, tenant, table
  version, filter, parameters and model; written atomically, pruned, never stale.
* `place_query` (overlay.py): where a query lands, and which of its search hits are on the
  map (`QueryPlacement`).

UMAP (and numba, which compiles it on first use) loads when a map is computed, not on
import.
"""

from __future__ import annotations

from memory_core.projection.cache import ProjectionCache
from memory_core.projection.layout import project
from memory_core.projection.overlay import place_query
from memory_core.projection.params import MapParams
from memory_core.projection.result import Projection, QueryPlacement

__all__ = ["MapParams", "Projection", "ProjectionCache", "QueryPlacement", "place_query",
           "project"]
