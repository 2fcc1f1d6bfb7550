"""`cluster_layout`: the clusters of a map's layout, each with a label, a size, a centre and
its commonest memory types and projects; noise kept as its own group.

HDBSCAN runs on the 2-D layout (columns `x`, `y`), not on the 384-d vectors: the density a
user sees on the map is the density in UMAP's space, so the clusters agree with the picture;
and density estimates degrade in high dimensions (distances concentrate), where HDBSCAN is
both slow and unstable. UMAP's documentation recommends exactly this ("Using UMAP for
Clustering", umap-learn.readthedocs.io/en/latest/clustering.html: cluster the UMAP
embedding with HDBSCAN, since UMAP keeps the density structure HDBSCAN needs), with
`min_samples=10` as its example; that is our `min_samples` (capped by the cluster size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memory_core.model.errors import InvalidMapParamsError
from memory_core.model.untrusted import shown
from memory_core.projection.density import hdbscan_labels
from memory_core.projection.labels import cluster_labels

if TYPE_CHECKING:
    import polars as pl

#: The `cluster` of noise, and its label.
NOISE = -1
NOISE_LABEL = "noise"
#: `min_samples` of HDBSCAN (UMAP's clustering guide), at most the cluster size.
MIN_SAMPLES = 10
#: How many memory types / projects `top_types` and `top_projects` name.
TOP_GROUPS = 3
#: What `top_types` / `top_projects` call a memory without one.
NO_VALUE = "(none)"


def default_min_cluster_size(n: int) -> int:
    """The default smallest cluster: 0.5% of the points, at least 10 (14 for the demo's
    2,806 active memories, 250 at 50,000), so a map has at most 200 clusters to label.

    10 is BERTopic's default smallest topic. The first rule here, 1% and at least 5, left
    the demo store with 4 clusters, one of them 2,600 of its 2,806 memories: HDBSCAN's
    "excess of mass" keeps a parent over children that are each smaller than the minimum,
    and the demo's topics are islands of 20-150 memories. At 0.5% it finds 73 (757 points
    noise), in line with the islands a person sees on the map."""
    return max(10, n // 200)


@dataclass(frozen=True)
class Clusters:
    """The clusters of a layout.

    `assignments`: one row per layout row, in its order: `id`, `cluster` (0 is the largest
    cluster, 1 the next, ...; -1 noise) and `cluster_label` ("noise" for -1).
    `table`: one row per cluster, largest first, noise last (when there is any): `cluster`,
    `label`, `size`, `x`, `y` (the mean of its points; null for noise, which has no
    centre), `top_types` and `top_projects` ("decision 12, lesson 3").
    """

    assignments: pl.DataFrame
    table: pl.DataFrame
    min_cluster_size: int
    min_samples: int

    def to_frame(self) -> pl.DataFrame:
        """The cluster table."""
        return self.table


def _check(layout: pl.DataFrame, text_column: str, min_cluster_size: int | None) -> None:
    missing = [c for c in ("id", "x", "y", text_column) if c not in layout.columns]
    if missing:
        raise InvalidMapParamsError(
            f"the layout has no column {', '.join(map(repr, missing))} (columns: "
            f"{shown(layout.columns)}); pass the frame of a map (`project(...).frame`)")
    if min_cluster_size is not None and (isinstance(min_cluster_size, bool) or not isinstance(
            min_cluster_size, int) or min_cluster_size < 2):
        raise InvalidMapParamsError(
            f"min_cluster_size must be a whole number >= 2, got {shown(min_cluster_size)}; "
            f"leave it None for max(10, n // 200)")


def _points(layout: pl.DataFrame) -> np.ndarray:
    points = layout.select("x", "y").to_numpy().astype(np.float64)
    if not np.isfinite(points).all():
        raise InvalidMapParamsError(
            f"the layout has {int((~np.isfinite(points)).any(axis=1).sum())} points whose x "
            f"or y is missing or not finite; cluster a layout `project` made")
    return points


def _by_size(raw: np.ndarray) -> np.ndarray:
    """`raw` renumbered so cluster 0 is the largest (ties: the one seen first); noise
    stays -1."""
    found, firsts, sizes = np.unique(raw[raw != NOISE], return_index=True,
                                     return_counts=True)
    order = found[np.lexsort((firsts, -sizes))]
    lookup = np.full(int(raw.max(initial=NOISE)) + 2, NOISE, dtype=np.int64)
    lookup[order] = np.arange(len(order))
    return np.where(raw == NOISE, NOISE, lookup[raw])


def _summary(values: list[str | None]) -> str:
    """"a 12, b 3": the commonest values, most first (ties by name); None as NO_VALUE."""
    counts: dict[str, int] = {}
    for value in values:
        key = NO_VALUE if value is None else value
        counts[key] = counts.get(key, 0) + 1
    best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_GROUPS]
    return ", ".join(f"{name} {n}" for name, n in best)


def _table(frame: pl.DataFrame, labels: dict[int, str]) -> pl.DataFrame:
    import polars as pl

    rows = []
    for (cluster,), group in frame.group_by(["cluster"], maintain_order=True):
        noise = cluster == NOISE
        rows.append({
            "cluster": cluster, "label": labels[cluster], "size": group.height,
            "x": None if noise else float(group["x"].mean()),  # type: ignore[arg-type]
            "y": None if noise else float(group["y"].mean()),  # type: ignore[arg-type]
            "top_types": _summary(group["memory_type"].to_list()),
            "top_projects": _summary(group["project"].to_list()),
        })
    schema = {"cluster": pl.Int64, "label": pl.String, "size": pl.Int64, "x": pl.Float64,
              "y": pl.Float64, "top_types": pl.String, "top_projects": pl.String}
    table = pl.DataFrame(rows, schema=schema, orient="row")
    return table.sort([pl.col("cluster") == NOISE, "cluster"])


def cluster_layout(layout: pl.DataFrame, *, min_cluster_size: int | None = None,
                   text_column: str = "content") -> Clusters:
    """HDBSCAN clusters of `layout` (a map's frame: `id`, `x`, `y`, `text_column`, and
    `memory_type` / `project` when it has them), labelled by their texts' c-TF-IDF terms
    (`cluster_labels`). `min_cluster_size` defaults to `default_min_cluster_size(n)`; a
    layout with fewer points is all noise. A cluster whose texts have no words left gets
    "cluster N" as its label.

    >>> import polars as pl
    >>> layout = pl.DataFrame({"id": ["a", "b"], "x": [0.0, 1.0], "y": [0.0, 1.0],
    ...                        "content": ["one", "two"]})
    >>> cluster_layout(layout).assignments["cluster_label"].to_list()
    ['noise', 'noise']
    """
    import polars as pl

    _check(layout, text_column, min_cluster_size)
    size = min_cluster_size or default_min_cluster_size(layout.height)
    min_samples = min(MIN_SAMPLES, size)
    clusters = _by_size(hdbscan_labels(_points(layout), min_cluster_size=size,
                                       min_samples=min_samples))
    texts = [t or "" for t in layout[text_column].to_list()]
    labels = {c: label or f"cluster {c}" for c, label in
              cluster_labels(texts, clusters.tolist()).items()}
    labels[NOISE] = NOISE_LABEL
    frame = layout.select(
        "id", pl.Series("cluster", clusters, dtype=pl.Int64), "x", "y",
        *(pl.col(c).cast(pl.String) if c in layout.columns else pl.lit(None, pl.String)
          .alias(c) for c in ("memory_type", "project")))
    assignments = frame.select(
        "id", "cluster",
        pl.col("cluster").replace_strict(list(labels), list(labels.values()),
                                         return_dtype=pl.String).alias("cluster_label"))
    return Clusters(assignments, _table(frame, labels), size, min_samples)
