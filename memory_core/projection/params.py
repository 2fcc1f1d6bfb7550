"""`MapParams`: the UMAP settings of an embedding map, checked when built."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memory_core.model.errors import InvalidMapParamsError
from memory_core.model.untrusted import shown

#: The largest seed numpy's legacy RandomState (which UMAP seeds) accepts.
MAX_SEED = 2**32 - 1
#: Dimensions a map can have.
DIMS = (2, 3)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class MapParams:
    """How `project` lays memories out: UMAP's `n_neighbors` (how local the layout is: small
    values split topics finely, large ones keep the global shape), `min_dist` (how tightly
    points pack, 0..1), `seed` (same seed and same memories, same layout, float for float),
    `dims` (2 or 3) and `sample`.

    `sample`: when the filter selects more than `sample` embedded memories, UMAP is fitted on
    `sample` of them and the rest are placed with the fitted model's `transform`. The sample
    is drawn with `seed`, uniformly within each memory type, each type getting its share of
    `sample` in proportion to its size (largest remainders round), so a sample keeps the
    store's mix of types (see `sampling.sample_rows`). None (the default) fits on every
    memory up to 50,000 and on a sample of 20,000 beyond (`layout.sample_size`).

    >>> MapParams(n_neighbors=1)
    Traceback (most recent call last):
    ...
    memory_core.model.errors.InvalidMapParamsError: n_neighbors must be a whole number of at \
least 2, got 1; UMAP's default is 15
    """

    n_neighbors: int = 15
    min_dist: float = 0.1
    seed: int = 42
    dims: int = 2
    sample: int | None = None

    def __post_init__(self) -> None:
        if not _is_int(self.n_neighbors) or self.n_neighbors < 2:
            raise InvalidMapParamsError(
                f"n_neighbors must be a whole number of at least 2, got "
                f"{shown(self.n_neighbors)}; UMAP's default is 15")
        if (isinstance(self.min_dist, bool) or not isinstance(self.min_dist, int | float)
                or not 0.0 <= self.min_dist <= 1.0):
            raise InvalidMapParamsError(
                f"min_dist must be a number from 0 to 1, got {shown(self.min_dist)}; "
                f"UMAP's default is 0.1 (smaller packs points tighter)")
        if not _is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            raise InvalidMapParamsError(
                f"seed must be a whole number from 0 to {MAX_SEED}, got {shown(self.seed)}")
        if not _is_int(self.dims) or self.dims not in DIMS:
            raise InvalidMapParamsError(
                f"dims must be 2 or 3, got {shown(self.dims)}")
        if self.sample is not None and (not _is_int(self.sample)
                                        or self.sample < self.n_neighbors + 1):
            raise InvalidMapParamsError(
                f"sample must be a whole number of at least n_neighbors + 1 "
                f"({self.n_neighbors + 1}) so that every sampled memory has its neighbours, "
                f"got {shown(self.sample)}; leave it None to fit on every memory")
        object.__setattr__(self, "min_dist", float(self.min_dist))

    def to_dict(self) -> dict[str, Any]:
        """The parameters as plain data (the cache key and `--json` use it)."""
        return asdict(self)
