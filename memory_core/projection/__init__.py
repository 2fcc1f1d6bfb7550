"""The embedding map's engine (DESIGN.md section 12): clusters of a map's layout with their
labels, and near-duplicate pairs of memories.

* `cluster_layout` (clusters.py): HDBSCAN on the 2-D layout, each cluster labelled, sized,
  centred and described by its commonest memory types and projects; noise its own group.
* `cluster_labels` (labels.py): class-based TF-IDF labels ("lancedb · index · vector").
* `near_duplicates`, `near_duplicate_pairs` (duplicates.py): pairs with cosine >= a
  threshold whose contents differ, by a blocked numpy product.

Heavy libraries (polars, scikit-learn, scipy) load when a function runs, not on import.
"""

from __future__ import annotations

from memory_core.projection.clusters import Clusters, cluster_layout
from memory_core.projection.duplicates import near_duplicate_pairs, near_duplicates
from memory_core.projection.labels import cluster_labels

__all__ = ["Clusters", "cluster_labels", "cluster_layout", "near_duplicate_pairs",
           "near_duplicates"]
