"""The cells near-duplicates compares: every close pair in exactly one of them, and on
clustered vectors only a small part of the all-pairs product."""

from __future__ import annotations

from collections import Counter
from itertools import product

import numpy as np
import pytest

from memory_core.projection.cells import Cell, cell_count, cells_to_compare


def _clustered(n: int, topics: int, spread: float, seed: int = 2) -> np.ndarray:
    """`n` unit vectors in 32-d around `topics` random directions."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((topics, 32))
    vectors = centres[rng.integers(0, topics, n)] / np.linalg.norm(
        centres, axis=1).mean() + spread * rng.standard_normal((n, 32)) / np.sqrt(32)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def _pairs(cell: Cell) -> set[tuple[int, int]]:
    return {(min(r, c), max(r, c)) for r, c in product(cell.rows.tolist(), cell.cols.tolist())
            if r != c and (not cell.same or r < c)}


@pytest.mark.parametrize(("threshold", "spread"), [(0.95, 0.3), (0.8, 0.5), (0.5, 0.8)])
def test_every_close_pair_is_in_exactly_one_cell(threshold: float, spread: float) -> None:
    unit = _clustered(600, 12, spread)
    cosines = unit.astype(np.float64) @ unit.T.astype(np.float64)
    close = {(i, j) for i, j in zip(*np.nonzero(np.triu(cosines >= threshold - 1e-6, k=1)),
                                    strict=True)}
    assert len(close) > 50
    seen = Counter(p for cell in cells_to_compare(unit, threshold, block=64)
                   for p in _pairs(cell))
    assert close <= set(seen)
    assert max(seen.values()) == 1  # no pair compared twice


def test_clustered_vectors_leave_little_of_the_product() -> None:
    unit = _clustered(4000, 40, 0.3)
    work = sum(len(c.rows) * len(c.cols) / (2 if c.same else 1)
               for c in cells_to_compare(unit, 0.95, block=256))
    assert work < 0.15 * 4000 * 4000 / 2


def test_one_cell_when_a_block_holds_everything() -> None:
    unit = _clustered(100, 3, 0.3)
    [cell] = cells_to_compare(unit, 0.95, block=100)
    assert cell.same and cell.rows.tolist() == list(range(100))
    assert list(cells_to_compare(unit[:0], 0.95, block=100)) == []
    assert [cell_count(n, 2048) for n in (10, 2048, 2049, 50_000)] == [1, 1, 45, 224]
