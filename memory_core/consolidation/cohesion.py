"""`cohesion`: how closely a group of memory vectors agrees, the input of `strength`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def cohesion(vectors: Sequence[Sequence[float]]) -> float | None:
    """The mean cosine of each vector to the group's centroid (the mean of the unit
    vectors); None for no vector. One vector agrees with itself: 1.0.

    >>> cohesion([[1.0, 0.0], [0.0, 1.0]])  # two orthogonal vectors, 45 degrees each way
    0.7071067811865475
    """
    if len(vectors) == 0:
        return None
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    units = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    centroid = units.mean(axis=0)
    length = float(np.linalg.norm(centroid))
    if length == 0.0:
        return 0.0
    return float(np.mean(units @ (centroid / length)))
