"""k-fold cross-validation of a choice among configs, on per-query metric values (pure).

Each config was evaluated once on every query, so choosing on some queries and scoring on
others needs no new searches: for fold i, the config with the best mean over the other folds
(its training queries) is chosen, and its mean over fold i (held out) is that fold's score.
The mean and spread of the fold scores estimate how "pick the best config on this query set"
does on queries it has not seen (Stone, J. R. Stat. Soc. B 1974; Hastie, Tibshirani and
Friedman, *The Elements of Statistical Learning*, 2nd ed., section 7.10). The base config is
scored on the same folds, so the two estimates are paired.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memory_core.model.errors import InvalidConfigError

#: config index -> qid -> metric value, every config scored on every query.
Values = Sequence[Mapping[str, float]]


@dataclass(frozen=True)
class Fold:
    """One fold: the config chosen on `train` and scored on `held_out` (disjoint qids).

    `train_score` is the chosen config's mean on `train`; `score` its mean on `held_out`;
    `base_score` the base config's (index 0) mean on `held_out`.
    """

    index: int
    held_out: tuple[str, ...]
    train: tuple[str, ...]
    chosen: int
    train_score: float
    score: float
    base_score: float


def assign_folds(qids: Sequence[str], folds: int, seed: int) -> tuple[tuple[str, ...], ...]:
    """`qids` shuffled with `random.Random(seed)` and dealt into `folds` folds whose sizes
    differ by at most one.

    >>> assign_folds(["a", "b", "c", "d"], 2, seed=0)
    (('c', 'b'), ('a', 'd'))
    """
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise InvalidConfigError(f"folds must be an integer >= 2, got {folds!r}")
    if len(set(qids)) != len(qids):
        raise InvalidConfigError("qids must be unique to be dealt into folds")
    if folds > len(qids):
        raise InvalidConfigError(f"{folds} folds need at least {folds} queries, the set has "
                                 f"{len(qids)}; use fewer folds")
    order = list(qids)
    random.Random(seed).shuffle(order)
    return tuple(tuple(order[i::folds]) for i in range(folds))


def mean_over(values: Mapping[str, float], qids: Sequence[str]) -> float:
    """The mean of `values` over `qids` (0 for no qids)."""
    return sum(values[q] for q in qids) / len(qids) if qids else 0.0


def best(values: Values, qids: Sequence[str]) -> int:
    """The index of the config with the highest mean over `qids`; ties go to the lower
    index, so the base (index 0) is kept unless another config does strictly better."""
    means = [mean_over(v, qids) for v in values]
    return max(range(len(means)), key=lambda i: (means[i], -i))


def cross_validate(values: Values, folds: Sequence[Sequence[str]]) -> tuple[Fold, ...]:
    """For each fold, the config chosen on the other folds and its score on this one.

    The chooser is handed only the training qids' values, so a fold's queries can never
    influence the choice it is scored with.
    """
    if not values:
        raise InvalidConfigError("cross-validation needs at least one config")
    out = []
    for i, held_out in enumerate(folds):
        train = tuple(q for j, fold in enumerate(folds) if j != i for q in fold)
        seen = [{q: v[q] for q in train} for v in values]  # the held-out fold is not in it
        chosen = best(seen, train)
        out.append(Fold(index=i, held_out=tuple(held_out), train=train, chosen=chosen,
                        train_score=mean_over(values[chosen], train),
                        score=mean_over(values[chosen], held_out),
                        base_score=mean_over(values[0], held_out)))
    return tuple(out)


def spread(scores: Sequence[float]) -> tuple[float, float]:
    """(mean, sample standard deviation) of fold scores; the sd is 0 for one score.

    >>> spread([0.5, 0.7])
    (0.6, 0.14142135623730948)
    """
    if not scores:
        return 0.0, 0.0
    mean = statistics.fmean(scores)
    return mean, statistics.stdev(scores) if len(scores) > 1 else 0.0
