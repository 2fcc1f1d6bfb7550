"""Grouping scores: pairwise precision/recall/F1 and adjusted Rand worked out by hand, and on
the demo store (its reflections removed on a copy) a floor under the measured figures."""

from __future__ import annotations

import pytest

from memory_core.consolidation.ground_truth import grouping_scores, pair_scores
from memory_core.model.errors import CurationError
from memory_core.store import MemoryStore


def test_pairwise_scores_by_hand() -> None:
    # truth {a b c} {d e}; groups {a b} {c d x}: labelled pairs grouped together: ab (true),
    # cd (false); true pairs: ab ac bc de, of which ab is found
    s = pair_scores([{"a", "b", "c"}, {"d", "e"}], [["a", "b"], ["c", "d", "x"]])
    assert (s.precision, s.recall) == (1 / 2, 1 / 4)
    assert s.f1 == pytest.approx(2 * (1 / 2) * (1 / 4) / (1 / 2 + 1 / 4))
    assert (s.labelled, s.truth_sets, s.groups, s.grouped) == (5, 2, 2, 5)


def test_a_perfect_grouping_scores_one() -> None:
    s = pair_scores([{"a", "b"}, {"c", "d"}], [["a", "b", "x"], ["d", "c"]])
    assert (s.precision, s.recall, s.f1, s.ari) == (1.0, 1.0, 1.0, 1.0)


def test_a_store_without_reflections_has_nothing_to_score(store: MemoryStore) -> None:
    with pytest.raises(CurationError, match="nothing to score"):
        grouping_scores(store)


def test_the_demo_grouping_finds_what_its_reflections_consolidated(
        demo_store: MemoryStore) -> None:
    # measured on the demo: precision 0.93, recall 0.80, F1 0.86, adjusted Rand 0.86
    # (README.md "Consolidation"); the floors leave room for a change of BLAS or k-means
    # seed, not for a worse method
    scores = grouping_scores(demo_store)
    # 111 reflections, one whose sources are all archived: 110 sets of 322 active sources
    assert scores.truth_sets == 110 and scores.labelled == 322
    assert scores.precision >= 0.85 and scores.recall >= 0.70
    assert scores.f1 >= 0.80 and scores.ari >= 0.80
