"""How well a consolidation candidate or a reflection is supported by its evidence."""

from __future__ import annotations

import math


def strength(source_count: int, cohesion: float) -> float:
    """Return ``max(0, min(1, cohesion)) * n / (n + 2)`` for ``n = source_count``.

    Seed 004 gives a reflection a ``strength`` ("how well-supported by evidence") without a formula;
    this one multiplies two things a reader can check:

    - the **cohesion**, the mean cosine of the sources to their centroid, clipped to ``[0, 1]``
      (an incoherent group is no evidence, however large);
    - the **evidence** ``n / (n + 2)``: the posterior mean of a Beta(1, 1) prior after ``n``
      agreeing observations and none against (Laplace's rule of succession, ``(n + 1) / (n + 2)``,
      minus the prior's pseudo-count so that no source gives zero). One source gives 1/3,
      three give 3/5, eight give 4/5; it approaches 1 and never reaches it.

    The result is in ``[0, 1]``.

    >>> round(strength(3, 0.8), 4)
    0.48
    >>> strength(0, 1.0)
    0.0
    """
    if isinstance(source_count, bool) or not isinstance(source_count, int):
        raise TypeError(f"source_count must be an int, not {type(source_count).__name__}")
    if source_count < 0:
        raise ValueError(f"source_count must be >= 0, not {source_count}")
    if not isinstance(cohesion, (int, float)) or isinstance(cohesion, bool) or math.isnan(cohesion):
        raise ValueError(f"cohesion must be a number, not {cohesion!r}")
    clipped = max(0.0, min(1.0, float(cohesion)))
    return clipped * source_count / (source_count + 2)
