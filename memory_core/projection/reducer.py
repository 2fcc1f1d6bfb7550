"""UMAP itself: imported on first use (numba compiles it then), fitted with a map's
parameters, and used to place further vectors in batches."""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from memory_core.projection.neighbours import EXACT_LIMIT, ExactCosineIndex
from memory_core.projection.params import MapParams

#: Vectors `place_batches` hands to `transform` at a time (progress moves between them).
#: UMAP optimises a batch of more than 10,000 new points for 30 epochs, a smaller one for
#: 100: 37,000 points placed on a 10,000-point map took 24 s in batches of 16,384 against
#: 34 s in batches of 4,096, and moved 0.03 on average in a layout 11 across.
PLACE_BATCH = 16_384
#: Points of the warm-up fit that compiles UMAP's numba code before the real fit.
WARM_UP_POINTS = 64

#: The UMAP modules whose numba functions `keep_compiled_code` has numba store on disk.
_UMAP_MODULES = ("umap.distances", "umap.utils", "umap.spectral", "umap.sparse",
                 "umap.layouts", "umap.umap_")

try:
    import fcntl
except ImportError:  # not POSIX: two processes may compile at once (only slower)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)
_warm = threading.Event()
_cached = threading.Event()
_warm_lock = threading.Lock()
_preparation: Preparation | None = None
_preparation_lock = threading.Lock()


def is_warm() -> bool:
    """Whether this process has fitted UMAP already (its numba code is compiled)."""
    return _warm.is_set()


def initial_layout(points: int, dims: int) -> str:
    """How UMAP starts the layout of `points` points: "spectral" (its default, the
    eigenvectors of the neighbour graph), or "random" (seeded) when there are too few
    points for dims + 1 eigenvectors (scipy needs more points than eigenvectors)."""
    return "spectral" if points >= dims + 2 else "random"


def keep_compiled_code() -> None:
    """Have numba keep what it compiles of UMAP on disk, as pynndescent's code already is.

    UMAP's numba functions are not declared `cache=True`, so every new process compiles
    them again: ~10 s of the first map in a process on two cores. `enable_caching` on each
    of them stores the machine code next to UMAP's sources (or under NUMBA_CACHE_DIR), keyed
    by the source file, so a later process loads it in a fraction of a second (measured:
    a warm-up fit 10 s before, 0.13 s after). Numba keeps that method on its dispatchers
    but does not document it: if it goes, UMAP compiles in every process as before.
    """
    import importlib

    from numba.core.registry import CPUDispatcher

    if _cached.is_set():
        return
    _cached.set()
    for name in _UMAP_MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                try:
                    value.enable_caching()
                except (AttributeError, TypeError, RuntimeError) as exc:
                    log.info("numba will compile %s again in every process (%s)", name, exc)
                    return


def make_umap(params: MapParams, n_neighbors: int, points: int,
              precomputed_knn: tuple[Any, Any, Any] = (None, None, None)) -> Any:
    """An unfitted `umap.UMAP` with `params` for `points` points (cosine; `n_neighbors` may
    be lowered for a tiny corpus), given their neighbours when `precomputed_knn` holds
    them. `n_jobs=1` because a seeded UMAP runs on one thread anyway (it warns otherwise);
    `transform_seed` is the seed too, so placing is as repeatable as fitting."""
    import umap

    return umap.UMAP(metric="cosine", n_neighbors=n_neighbors, min_dist=params.min_dist,
                     random_state=params.seed, transform_seed=params.seed,
                     n_components=params.dims, init=initial_layout(points, params.dims),
                     precomputed_knn=precomputed_knn, n_jobs=1, verbose=False)


def warm_up(params: MapParams) -> None:
    """Import UMAP and fit it once on a few seeded random points, so that numba compiles
    its code here (tens of seconds the first time on a machine, a few seconds in later
    processes: `keep_compiled_code`) and not in the middle of the real fit. Does nothing
    once this process has fitted UMAP."""
    with _warm_lock:
        if _warm.is_set():
            return
        keep_compiled_code()
        points = np.random.default_rng(0).standard_normal((WARM_UP_POINTS, 8))
        fit(points.astype(np.float32), params, 5)


def compile_lock_path() -> Path:
    """The file two processes of this user lock so that one of them compiles UMAP's numba
    code (and pynndescent's, on its first import) while the other waits, then loads what
    the first one stored instead of compiling the same code on the other core."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"memlens-umap-compile-{uid}.lock"


@contextmanager
def _compile_lock() -> Iterator[None]:
    if fcntl is None:
        yield
        return
    try:
        handle = compile_lock_path().open("a")
    except OSError as exc:  # an unwritable temp folder: compile without the lock
        log.info("compiling UMAP without the machine-wide lock (%s)", exc)
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # the OS drops it when its holder dies
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare(params: MapParams) -> None:
    """Import UMAP and compile its code (`warm_up`) in this process, holding the machine's
    compile lock (`compile_lock_path`): the first process on a machine compiles and stores
    the code, a concurrent one waits and then loads it. Does nothing once warm."""
    if _warm.is_set():
        return
    with _compile_lock():
        import umap  # noqa: F401  (its import compiles pynndescent the first time)

        warm_up(params)


class Preparation:
    """`prepare` running in a background thread: `wait()` returns once it has finished and
    raises what it raised (UMAP missing, say) in the waiting thread."""

    def __init__(self, params: MapParams) -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(params,),
                                        name="memlens-umap-prepare", daemon=True)
        self._thread.start()

    def _run(self, params: MapParams) -> None:
        try:
            prepare(params)
        except BaseException as exc:  # handed to whoever waits
            self._error = exc

    def done(self) -> bool:
        return not self._thread.is_alive()

    def failed(self) -> bool:
        """Finished with an error (a later `prepare_in_background` starts a new one)."""
        return self.done() and self._error is not None

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def prepare_in_background(params: MapParams | None = None) -> Preparation:
    """Start `prepare` in a daemon thread, once per process (later calls return the same
    `Preparation`, or a new one when the last one failed). A map started meanwhile waits for
    it instead of compiling again; the neighbour search (numpy, BLAS) runs alongside it."""
    global _preparation
    with _preparation_lock:
        if _preparation is None or _preparation.failed():
            _preparation = Preparation(params if params is not None else MapParams())
        return _preparation


def exact_neighbours(vectors: np.ndarray, n_neighbors: int
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """The exact cosine neighbours of every vector (indices, distances) that `fit` hands to
    UMAP, or None beyond `neighbours.EXACT_LIMIT` points (pynndescent finds them then)."""
    if len(vectors) > EXACT_LIMIT:
        return None
    return ExactCosineIndex(vectors).query(vectors, n_neighbors)


def fit(vectors: np.ndarray, params: MapParams, n_neighbors: int,
        known: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[Any, np.ndarray]:
    """UMAP fitted on `vectors`, and their layout (n x dims, float64). Up to
    `neighbours.EXACT_LIMIT` points it is given their exact neighbours (`known`, from
    `exact_neighbours`, or found here); beyond, it finds them with pynndescent. Either way
    its `transform` searches an `ExactCosineIndex`."""
    index = ExactCosineIndex(vectors)
    if known is None and len(vectors) <= EXACT_LIMIT:
        known = index.query(vectors, n_neighbors)
    reducer = make_umap(params, n_neighbors, len(vectors),
                        precomputed_knn=(*known, index) if known else (None, None, None))
    with warnings.catch_warnings():
        # UMAP warns about its own choices (spectral init on tiny graphs, an index that is
        # not pynndescent's, ...): noise here
        warnings.simplefilter("ignore")
        layout = reducer.fit_transform(vectors)
    index.data = reducer._raw_data  # one array for both, so a pickle holds it once
    reducer._knn_search_index = index
    _warm.set()
    return reducer, np.asarray(layout, dtype=np.float64)


def place_batches(reducer: Any, vectors: np.ndarray,
                  advance: Callable[[int], None] | None = None) -> np.ndarray:
    """`vectors` placed by the fitted `reducer` (its `transform`), `PLACE_BATCH` at a
    time, calling `advance(done)` after each batch; n x dims, float64."""
    dims = int(reducer.n_components)
    out = np.empty((len(vectors), dims), dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in range(0, len(vectors), PLACE_BATCH):
            stop = min(start + PLACE_BATCH, len(vectors))
            out[start:stop] = reducer.transform(vectors[start:stop])
            if advance is not None:
                advance(stop)
    return out
