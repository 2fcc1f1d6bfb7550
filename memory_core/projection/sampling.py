"""The sample a large map is fitted on: seeded, uniform within each memory type, each type
represented in proportion to its size."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def type_quotas(counts: dict[str, int], size: int) -> dict[str, int]:
    """How many of each type a sample of `size` takes: `size * n_t / n` rounded down, the
    remaining places going to the largest remainders (ties to the type named first), the
    largest-remainder (Hamilton) apportionment.

    >>> type_quotas({"decision": 5, "fact": 3, "lesson": 2}, 5)
    {'decision': 3, 'fact': 1, 'lesson': 1}
    """
    total = sum(counts.values())
    if size >= total:
        return dict(counts)
    exact = {t: size * n / total for t, n in counts.items()}
    quotas = {t: int(q) for t, q in exact.items()}
    left = size - sum(quotas.values())
    by_remainder = sorted(exact, key=lambda t: (-(exact[t] - quotas[t]), t))
    for t in by_remainder[:left]:
        quotas[t] += 1
    return quotas


def sample_rows(memory_types: Sequence[str | None], size: int, seed: int) -> np.ndarray:
    """Row numbers (sorted) of a sample of `size` rows: per type (`type_quotas`), drawn
    uniformly without replacement with `numpy.random.default_rng(seed)`, the types taken in
    name order. Rows are the caller's, which must come in a fixed order (`project` sorts by
    id) for the sample to be the same from run to run. All rows when `size` covers them.
    """
    n = len(memory_types)
    if size >= n:
        return np.arange(n)
    types = np.asarray(["" if t is None else t for t in memory_types], dtype=object)
    names, inverse = np.unique(types.astype(str), return_inverse=True)
    counts = {str(name): int(c) for name, c in zip(names, np.bincount(inverse), strict=True)}
    quotas = type_quotas(counts, size)
    rng = np.random.default_rng(seed)
    picked = [rng.choice(np.flatnonzero(inverse == i), size=quotas[str(name)], replace=False)
              for i, name in enumerate(names)]
    return np.sort(np.concatenate(picked))
