"""`SearchSpace`: which `RankingConfig` knobs `tune` tries, and the grid of configs they make.

A knob is a `RankingConfig` field (`"weight_bm25"`) or a nested decay parameter, dotted
(`"decay.usage_cap"`, `"decay.tier_anchor.critical"`): the names `RankingConfig.diff` uses.
The grid is every combination of the knobs' values applied to a base config, the base itself
first (so tuning can always keep it); a combination `RankingConfig` rejects (both engines
off, a negative weight) is skipped and counted with its reason, and one that ranks exactly
like an earlier one is dropped (`INERT`: the knobs it differs in have no effect there, such
as `rrf_k` under score fusion), so no search is spent twice.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.model.errors import InvalidConfigError
from memory_core.model.untrusted import shown
from memory_core.retrieval.config import RankingConfig

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


#: (knob or dotted prefix, when it cannot change a ranking): the pipeline's stages read
#: these knobs only when the condition is false (retrieval/fusion.py, score_fusion.py,
#: candidates.py, rerank.py; a test searches both sides of every rule to keep them true).
INERT: tuple[tuple[str, Callable[[RankingConfig], bool]], ...] = (
    ("rrf_k", lambda c: c.fusion != "rrf"),
    ("convergence_bonus", lambda c: c.fusion != "rrf"),
    ("normalisation", lambda c: c.fusion == "rrf"),
    ("context_weight", lambda c: c.context_window == 0),
    ("context_window", lambda c: c.context_weight == 0),
    ("weight_vector", lambda c: not c.use_vector),
    ("weight_bm25", lambda c: not c.use_bm25),
    ("weight_graph", lambda c: not c.use_graph),
    ("graph_", lambda c: not c.use_graph),
    ("decay", lambda c: not c.use_decay),  # decay.* and decay_weight
    ("mmr_lambda", lambda c: not c.use_mmr),
)


def ranking_key(config: RankingConfig) -> str:
    """`config` as JSON without the knobs that cannot change its ranking (`INERT`): two
    configs with the same key rank every query alike.

    >>> ranking_key(RankingConfig(fusion="convex", rrf_k=10)) == ranking_key(
    ...     RankingConfig(fusion="convex", rrf_k=60))
    True
    """
    inert = [prefix for prefix, when in INERT if when(config)]
    return json.dumps({k: v for k, v in knob_values(config).items()
                       if not any(k.startswith(p) for p in inert)}, sort_keys=True)


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
        """The grid on `base`: the base first, then every valid combination that ranks
        differently from those before it, in order.

        Raises `InvalidConfigError` when the grid exceeds `MAX_CONFIGS` or no combination
        is valid (a typo in a value, usually).
        """
        if self.size > MAX_CONFIGS:
            raise InvalidConfigError(f"the search space makes {self.size} configs, more than "
                                     f"{MAX_CONFIGS}; give fewer knobs or values")
        names = self.names
        current = knob_values(base)
        found = [Candidate(0, {n: current[n] for n in names}, base)]
        seen = {ranking_key(base)}
        skipped, reasons = 0, dict[str, None]()
        for combo in itertools.product(*(values for _, values in self.knobs)):
            values = dict(zip(names, combo, strict=True))
            try:
                config = with_knobs(base, values)
            except InvalidConfigError as exc:
                skipped += 1
                reasons[str(exc)] = None
                continue
            if ranking_key(config) not in seen:
                seen.add(ranking_key(config))
                found.append(Candidate(len(found), values, config))
        if skipped == self.size:
            raise InvalidConfigError(f"every combination of the search space is invalid: "
                                     f"{'; '.join(reasons)}")
        return Grid(tuple(found), skipped, tuple(reasons))



def default_space(base: RankingConfig) -> SearchSpace:
    """What `tune` searches around `base` when given no space: 12 configs for a base
    without decay, 24 with (one search per query each: ~300 queries take a few minutes on
    two cores). Every range holds the base's own value, so tuning can keep it.

    - `fusion`: the base's and the other of rrf / convex. RRF keeps only ranks, a convex
      combination of normalised scores keeps how far ahead an engine puts a memory (Bruch
      et al. 2023); which wins depends on how the store's engines score. `normalisation`
      stays the base's: a second-order choice, searchable with a space of your own;
    - `weight_bm25`: the base's, half and double, against the vector weight (only the
      ratio matters). The stronger engine differs by store (names and keywords favour BM25,
      paraphrases the vector); a factor of two either way shifts the balance without
      muting an engine;
    - `context_window`: the base's and off (or 2 when the base has it off). Session context
      lifts conversational memories whose answer sits next to the question's words and
      does nothing for memories without sessions: only the store's queries can tell;
    - with decay on, `decay_weight`: the base's and half of it. A relevance-judged query
      set cannot reward recency, which is what recall's users keep decay for, so the
      search may soften the prior where it costs relevance but never offers a stronger one
      that it would have no evidence for.

    The graph knobs stay the base's: whether edges help depends on how many the store has,
    and `--space` can search them.
    """
    knobs: dict[str, tuple[Any, ...]] = {
        "fusion": tuple(dict.fromkeys((base.fusion, "convex" if base.fusion == "rrf"
                                       else "rrf"))),
        "weight_bm25": tuple(dict.fromkeys((base.weight_bm25, base.weight_bm25 / 2,
                                            base.weight_bm25 * 2))),
        "context_window": (base.context_window, 2 if base.context_window == 0 else 0),
    }
    if base.use_decay:
        knobs["decay_weight"] = tuple(dict.fromkeys((base.decay_weight,
                                                     base.decay_weight / 2)))
    return SearchSpace(knobs)
