"""`Projection`: a map's layout as a polars frame, with the fitted UMAP that places new
vectors on it; and `QueryPlacement`, where a query lands."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_core.model.errors import MapError
from memory_core.projection.params import MapParams

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter

#: The coordinate columns of a map with `dims` dimensions.
AXES = ("x", "y", "z")


def axes(dims: int) -> tuple[str, ...]:
    """The coordinate columns of a `dims`-dimensional map: ('x', 'y') or ('x', 'y', 'z')."""
    return AXES[:dims]


class LoadOnce:
    """A fitted model, or how to load it: loaded on the first call, then kept (a cached
    map's model loads only when a query is placed: importing UMAP costs seconds)."""

    def __init__(self, value: Any = None, *, loader: Callable[[], Any] | None = None) -> None:
        self._value = value
        self._loader = loader
        self._lock = threading.Lock()

    def __call__(self) -> Any:
        with self._lock:
            if self._loader is not None:
                self._value = self._loader()
                self._loader = None
            return self._value


@dataclass(frozen=True, eq=False)
class Projection:
    """An embedding map of one tenant's memories under a filter.

    `frame`: one row per embedded memory, sorted by id: `id`, `x`, `y` (`z` when
    `params.dims` is 3) and the memory fields `memory_type, project, agent, status,
    importance, created_at, content` (content whole: pages clip and escape it).
    `key` is the cache key (store, tenant, table version, filter, params, model);
    `from_cache` says whether the layout was read from the cache; `skipped_unembedded`
    counts the selected memories not on the map (no vector yet, or an all-zero one).
    `fitted` counts the memories UMAP was fitted on (fewer than the frame's rows when
    `params.sample` applied: the rest were placed with `transform`). `notes` say what was
    adjusted (n_neighbors lowered for a tiny corpus, a sample drawn). `model` is the fitted
    UMAP (on a cache hit it is read from the cache on first use); `place` uses it.
    """

    frame: pl.DataFrame
    params: MapParams
    key: str
    from_cache: bool
    skipped_unembedded: int
    fitted: int
    model_id: str
    version: int
    filter: Filter | None = None
    notes: tuple[str, ...] = ()
    reducer: LoadOnce = field(default_factory=LoadOnce, repr=False)

    @property
    def model(self) -> Any:
        """The fitted reducer (`umap.UMAP`), loaded from the cache on first use."""
        return self.reducer()

    def to_frame(self) -> pl.DataFrame:
        """The layout frame (`frame`)."""
        return self.frame

    def place(self, vectors: np.ndarray) -> np.ndarray:
        """Where `vectors` (n x the store's dimension, or one vector) land on this map: an
        n x dims float64 array from the fitted model's `transform`."""
        from memory_core.projection.reducer import place_batches

        model = self.model
        if model is None:
            raise MapError("this map has no fitted model to place vectors with; compute it "
                           "with project()")
        batch = np.asarray(vectors, dtype=np.float32)
        if batch.ndim == 1:
            batch = batch[None, :]
        raw = getattr(model, "_raw_data", None)  # what UMAP was fitted on
        expected = int(raw.shape[1]) if raw is not None else batch.shape[-1]
        if batch.ndim != 2 or batch.shape[1] != expected:
            raise MapError(f"vectors to place must have {expected} columns (the map's "
                           f"dimension), got shape {batch.shape}")
        return place_batches(model, batch)


@dataclass(frozen=True)
class QueryPlacement:
    """Where a query lands on a map (`x`, `y`; `z` on a 3-D map, else None), its top-k
    search hits best first (`hit_ids`) and those of them the map shows (`hits_on_map`,
    in the same order)."""

    query: str
    x: float
    y: float
    hit_ids: tuple[str, ...]
    hits_on_map: tuple[str, ...]
    z: float | None = None
