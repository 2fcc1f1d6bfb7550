"""`SearchSpace`: which `RankingConfig` knobs `tune` tries, and the grid of configs they make.

A knob is a `RankingConfig` field (`"weight_bm25"`) or a nested decay parameter, dotted
(`"decay.usage_cap"`, `"decay.tier_anchor.critical"`): the names `RankingConfig.diff` uses.
The grid is every combination of the knobs' values applied to a base config, the base itself
first (so tuning can always keep it); a combination `RankingConfig` rejects (both engines
off, a negative weight) is skipped and counted with its reason, a duplicate is dropped.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.errors import InvalidConfigError
from memory_core.retrieval.config import RankingConfig
from memory_core.untrusted import shown

#: A grid larger than this is refused: every config costs one search per query.
MAX_CONFIGS = 2000


def _leaves(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted name, value) of every scalar knob in a `RankingConfig.to_dict()`."""
    for key, value in data.items():
        if isinstance(value, Mapping):
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def knob_values(config: RankingConfig) -> dict[str, Any]:
    """Every knob of `config` by dotted name (what a `SearchSpace` may name).

    >>> knob_values(RankingConfig())["decay.usage_cap"]
    1.5
    """
    return dict(_leaves(config.to_dict()))


def _checked(knob: str, value: Any, like: Any) -> Any:
    """`value` if it has the type of the knob's current value `like` (an int is a float)."""
    if isinstance(like, bool):
        ok = isinstance(value, bool)
    elif isinstance(like, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(like, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, type(like))
    if not ok:
        raise InvalidConfigError(f"knob {knob} takes {type(like).__name__} values, got "
                                 f"{shown(value)}")
    return value


def with_knobs(base: RankingConfig, values: Mapping[str, Any]) -> RankingConfig:
    """`base` with the dotted knobs of `values` set (validated by `RankingConfig`)."""
    data = base.to_dict()
    for knob, value in values.items():
        *path, last = knob.split(".")
        node = data
        for part in path:
            node = node[part]
        node[last] = value
    return RankingConfig.from_dict(data)


@dataclass(frozen=True)
class Candidate:
    """One config of the grid: its index, the space's knob values it has, and the config."""

    index: int
    knobs: Mapping[str, Any]
    config: RankingConfig

    @property
    def label(self) -> str:
        """The knob values as `name=value`, comma-separated."""
        return ", ".join(f"{k}={v}" for k, v in self.knobs.items())


@dataclass(frozen=True)
class Grid:
    """The configs to evaluate (the base first) and the combinations skipped, with why."""

    candidates: tuple[Candidate, ...]
    skipped: int
    reasons: tuple[str, ...]


@dataclass(frozen=True, init=False)
class SearchSpace:
    """Knob name -> the values to try, in order.

    >>> SearchSpace({"weight_bm25": (1.0, 2.0), "use_graph": (False, True)}).size
    4
    """

    knobs: tuple[tuple[str, tuple[Any, ...]], ...]

    def __init__(self, knobs: Mapping[str, Sequence[Any]]) -> None:
        known = knob_values(RankingConfig())
        unknown = sorted(set(knobs) - set(known))
        if unknown or not knobs:
            what = (f"unknown knob(s) {', '.join(map(shown, unknown))}" if unknown
                    else "a search space needs at least one knob")
            raise InvalidConfigError(f"{what}; known: {', '.join(sorted(known))}")
        pairs = []
        for knob, values in knobs.items():
            if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
                raise InvalidConfigError(f"knob {knob} needs a non-empty list of values, got "
                                         f"{shown(values)}")
            checked = tuple(_checked(knob, v, known[knob]) for v in values)
            pairs.append((knob, tuple(dict.fromkeys(checked))))
        object.__setattr__(self, "knobs", tuple(pairs))

    @property
    def names(self) -> tuple[str, ...]:
        """The knobs, in the order given."""
        return tuple(name for name, _ in self.knobs)

    @property
    def size(self) -> int:
        """How many combinations the knobs make (before invalid ones are skipped)."""
        size = 1
        for _, values in self.knobs:
            size *= len(values)
        return size

    def to_dict(self) -> dict[str, list[Any]]:
        """knob -> values, JSON-friendly."""
        return {name: list(values) for name, values in self.knobs}

    def expand(self, base: RankingConfig) -> Grid:
        """The grid on `base`: the base first, then every valid, new combination in order.

        Raises `InvalidConfigError` when the grid exceeds `MAX_CONFIGS` or no combination
        is valid (a typo in a value, usually).
        """
        if self.size > MAX_CONFIGS:
            raise InvalidConfigError(f"the search space makes {self.size} configs, more than "
                                     f"{MAX_CONFIGS}; give fewer knobs or values")
        names = self.names
        current = knob_values(base)
        found = [Candidate(0, {n: current[n] for n in names}, base)]
        seen = {base.to_json()}  # a config holds a dict (tier anchors): not hashable
        skipped, reasons = 0, dict[str, None]()
        for combo in itertools.product(*(values for _, values in self.knobs)):
            values = dict(zip(names, combo, strict=True))
            try:
                config = with_knobs(base, values)
            except InvalidConfigError as exc:
                skipped += 1
                reasons[str(exc)] = None
                continue
            if config.to_json() not in seen:
                seen.add(config.to_json())
                found.append(Candidate(len(found), values, config))
        if skipped == self.size:
            raise InvalidConfigError(f"every combination of the search space is invalid: "
                                     f"{'; '.join(reasons)}")
        return Grid(tuple(found), skipped, tuple(reasons))


#: What `tune` searches when given no space: 16 configs around the base (one search per
#: query each, so ~300 queries take a few minutes on two cores).
#: - `weight_bm25` 1 to 3 with the vector weight left at 1: only the ratio matters to RRF,
#:   and on conversational memory BM25 is the stronger engine (issue 16: equal weights pull
#:   it down), so the ratio is searched from equal to BM25 three times the vector;
#: - `rrf_k` 20 or 60: a small k trusts each engine's top ranks more (Cormack et al., SIGIR
#:   2009, found 60 robust; 20 is the sharper end seen in practice);
#: - `use_graph` off or on: the graph helps stores with many edges and adds noise to those
#:   with few, which only the store's own queries can tell.
DEFAULT_SPACE = SearchSpace({
    "weight_bm25": (1.0, 1.5, 2.0, 3.0),
    "rrf_k": (60, 20),
    "use_graph": (False, True),
})
