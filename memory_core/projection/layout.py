"""`project`: the embedding map of a tenant's memories (UMAP, cosine), read from the cache
when the store has not changed since it was computed (docs/design/map.md).

UMAP is umap-learn's, fitted from the exact neighbours memlens finds (reducer.py); the
first map of a machine waits for numba to compile it (engine.py), in a thread that runs
beside the neighbour search.

Stages, each reported to `progress(stage, fraction)` with fractions rising to 1: "loading
vectors", "finding neighbours" (exact ones), "compiling the map engine (once per
machine)" (only while numba compiles umap-learn) or "loading the map engine" (the first
map of a process), "fitting" (rising with UMAP's epochs),
"placing the rest" (only when fitted on a sample), "saving the map to the cache" (unless
`cache=False`), "done"; a cache hit reports "reading the cached map" then "done".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from memory_core.model.errors import MapError
from memory_core.projection.cache import ProjectionCache, cache_key
from memory_core.projection.params import MapParams
from memory_core.projection.result import LoadOnce, Projection, QueryPlacement, axes
from memory_core.projection.vectors import FIELDS, MapInput, load_input

if TYPE_CHECKING:
    import polars as pl

    from memory_core.model.filters import Filter
    from memory_core.store import MemoryStore

__all__ = ["MIN_POINTS", "Projection", "QueryPlacement", "project"]

log = logging.getLogger(__name__)

Progress = Callable[[str, float], None]
CacheChoice = ProjectionCache | Literal[False] | None

#: The fewest embedded memories a map is drawn for.
MIN_POINTS = 3
#: Without `MapParams.sample`, a map of more than `AUTO_SAMPLE_ABOVE` memories is fitted on
#: `AUTO_SAMPLE` of them and the rest are placed (the exact neighbour search grows with the
#: square of the points fitted).
AUTO_SAMPLE_ABOVE = 50_000
AUTO_SAMPLE = 20_000
LOADING = "loading vectors"
NEIGHBOURS = "finding neighbours"
COMPILING = "compiling the map engine (once per machine)"
STARTING = "loading the map engine"
FITTING = "fitting"
PLACING = "placing the rest"
READING = "reading the cached map"
SAVING = "saving the map to the cache"
DONE = "done"


def _no_progress(stage: str, fraction: float) -> None:
    """The progress callback when none is given."""


def _resolve_cache(cache: CacheChoice) -> ProjectionCache | None:
    if cache is False:
        return None
    if cache is None:
        return ProjectionCache.default()
    if not isinstance(cache, ProjectionCache):
        raise MapError(f"cache must be a ProjectionCache, None (the default cache) or False "
                       f"(no cache), got {type(cache).__name__}")
    return cache


def neighbours_for(n: int, params: MapParams) -> tuple[int, tuple[str, ...]]:
    """The n_neighbors UMAP can use on `n` points (at most n - 1) and a note when it is
    lowered; `MapError` under `MIN_POINTS` points."""
    if n < MIN_POINTS:
        raise MapError(f"a map needs at least {MIN_POINTS} embedded memories, the filter "
                       f"selects {n}; widen the filter, or embed pending memories with "
                       f"`memlens reembed`")
    if params.n_neighbors <= n - 1:
        return params.n_neighbors, ()
    return n - 1, (f"n_neighbors lowered from {params.n_neighbors} to {n - 1}: only {n} "
                   f"memories are on the map",)


def _frame(data: MapInput, coords: np.ndarray) -> pl.DataFrame:
    """The layout frame: id, the coordinates, then the memory fields."""
    import polars as pl

    names = axes(coords.shape[1])
    return data.fields.with_columns(
        pl.Series(name, coords[:, i], dtype=pl.Float64) for i, name in enumerate(names)
    ).select("id", *names, *FIELDS)


def sample_size(n: int, params: MapParams) -> int | None:
    """How many of `n` memories the map is fitted on when not all: `params.sample` when it
    is smaller than n, else `AUTO_SAMPLE` beyond `AUTO_SAMPLE_ABOVE` memories, else None."""
    if params.sample is not None:
        return params.sample if n > params.sample else None
    return AUTO_SAMPLE if n > AUTO_SAMPLE_ABOVE else None


def _compute(data: MapInput, params: MapParams, progress: Progress
             ) -> tuple[np.ndarray, Any, int, tuple[str, ...]]:
    """Fit UMAP (on a sample when `sample_size` says) and place every memory: the
    coordinates in `data`'s order, the fitted model, how many it was fitted on, notes."""
    from memory_core.projection import engine
    from memory_core.projection import reducer as umap_reducer
    from memory_core.projection.sampling import sample_rows

    n = len(data.vectors)
    rows = np.arange(n)
    notes: tuple[str, ...] = ()
    size = sample_size(n, params)
    if size is not None:
        rows = sample_rows(data.fields["memory_type"].to_list(), size, params.seed)
        chosen = "" if params.sample is not None else (
            f" chosen because more than {AUTO_SAMPLE_ABOVE} memories are selected; "
            f"set the sample size to change it")
        notes = (f"fitted on a sample of {len(rows)} of {n} memories (seed {params.seed}, "
                 f"in proportion to each memory type); the rest placed with transform"
                 f"{chosen}",)
    n_neighbors, lowered = neighbours_for(len(rows), params)
    if umap_reducer.initial_layout(len(rows), params.dims) == "random":
        lowered += (f"a random initial layout (seed {params.seed}): {len(rows)} memories are "
                    f"too few for a spectral one in {params.dims} dimensions",)
    fit_on = data.vectors if len(rows) == n else data.vectors[rows]
    preparing = engine.prepare_in_background(umap_reducer.compile_kernels)
    progress(NEIGHBOURS, 0.02)
    known = umap_reducer.exact_neighbours(
        fit_on, n_neighbors, lambda done, total: progress(NEIGHBOURS, 0.02 + 0.3 * done / total))
    if preparing is not None:
        # compiled on this machine already: only umap-learn's import (and numba's cached
        # code) is waited for
        stage = STARTING if engine.map_engine_state().state == "ready" else COMPILING
        progress(stage, 0.32)
        preparing.wait(lambda seconds: progress(
            stage, 0.32 + 0.01 * min(1.0, seconds / engine.EXPECTED_COMPILE_S)))
    fitted_share = 0.35 if len(rows) < n else 0.6
    progress(FITTING, 0.33)
    model, fitted = umap_reducer.fit(
        fit_on, params, n_neighbors, known,
        lambda epoch, epochs: progress(FITTING, 0.33 + fitted_share * epoch / epochs))
    coords = np.empty((n, params.dims), dtype=np.float64)
    coords[rows] = fitted
    rest = np.setdiff1d(np.arange(n), rows, assume_unique=True)
    if len(rest):
        progress(PLACING, 0.7)
        coords[rest] = umap_reducer.place_batches(
            model, data.vectors[rest],
            lambda done: progress(PLACING, 0.7 + 0.25 * done / len(rest)))
    return coords, model, len(rows), lowered + notes


def _from_cache(cache: ProjectionCache, key: str, params: MapParams, version: int,
                model_id: str, filter: Filter | None) -> Projection | None:
    """The map under `key` in `cache`, or None (a miss: none there, or one this code did not
    write, which `project` then replaces)."""
    hit = cache.get(key)
    if hit is None:
        return None
    path = hit.reducer_path
    try:
        if hit.frame.columns != ["id", *axes(params.dims), *FIELDS]:
            raise ValueError(f"its columns are {hit.frame.columns}")
        skipped, fitted = int(hit.meta["skipped_unembedded"]), int(hit.meta["fitted"])
        notes = tuple(str(note) for note in hit.meta["notes"])
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("ignoring the map cache entry %s (%s); it is recomputed", path.parent, exc)
        return None
    return Projection(
        frame=hit.frame, params=params, key=key, from_cache=True, skipped_unembedded=skipped,
        fitted=fitted, model_id=model_id, version=version, filter=filter, notes=notes,
        reducer=LoadOnce(loader=lambda: ProjectionCache.load_reducer(path)))


def project(store: MemoryStore, filter: Filter | None = None, *,
            params: MapParams | None = None, cache: CacheChoice = None,
            progress: Progress | None = None) -> Projection:
    """The map of the memories `filter` selects (active only unless it asks otherwise) in
    the store's tenant: UMAP (cosine distance) of their vectors with `params`, one row per
    embedded memory; memories without a vector are counted in `skipped_unembedded`.

    Deterministic: the same memories, parameters and seed give the same layout, float for
    float. `cache` None uses the default cache (`ProjectionCache.default()`), a
    `ProjectionCache` that one, False none. Fewer than n_neighbors + 1 memories lower
    n_neighbors (said in `notes`); fewer than 3 raise `MapError`.

    Example: `project(store, Filter(project="herd"), params=MapParams(seed=7)).frame`.
    """
    params = params if params is not None else MapParams()
    if not isinstance(params, MapParams):
        raise MapError(f"params must be a MapParams, got {type(params).__name__}")
    report = progress or _no_progress
    where = _resolve_cache(cache)
    version = store.version  # read before the vectors: a later write can only raise it
    key = cache_key(store_uri=store.uri, tenant=store.tenant, version=version,
                    filter=filter, params=params, model_id=store.model_id)
    if where is not None:
        report(READING, 0.0)
        cached = _from_cache(where, key, params, version, store.model_id, filter)
        if cached is not None:
            report(DONE, 1.0)
            return cached
    report(LOADING, 0.01)
    data = load_input(store, filter)
    neighbours_for(len(data.vectors), params)  # too few points: say so before UMAP loads
    coords, model, fitted, notes = _compute(data, params, report)
    if data.zero:
        notes += (f"{data.zero} memories with an all-zero vector left out (cosine distance "
                  f"cannot place them)",)
    frame = _frame(data, coords)
    if where is not None:
        report(SAVING, 0.97)
        where.put(key, frame, model, {"skipped_unembedded": data.skipped, "fitted": fitted,
                                      "notes": list(notes), "params": params.to_dict(),
                                      "store": store.uri, "tenant": store.tenant,
                                      "version": version, "model": store.model_id})
    report(DONE, 1.0)
    return Projection(frame=frame, params=params, key=key, from_cache=False,
                      skipped_unembedded=data.skipped, fitted=fitted, model_id=store.model_id,
                      version=version, filter=filter, notes=notes, reducer=LoadOnce(model))
