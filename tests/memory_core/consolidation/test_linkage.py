"""Average linkage by reciprocal rounds: the same clusters as scikit-learn's one-merge-at-a-
time average linkage on a full graph, the threshold and the size cap honoured, a missing pair
counted as 0."""

from __future__ import annotations

import numpy as np
import pytest

from memory_core.consolidation.linkage import average_linkage


def test_matches_one_at_a_time_average_linkage_on_a_full_graph() -> None:
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(3)
    points = rng.standard_normal((80, 6))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    sims = points @ points.T
    i, j = np.triu_indices(80, 1)
    ours = average_linkage(80, i, j, sims[i, j], threshold=0.3, cap=1000)
    distance = 1 - np.maximum(sims, 0)
    np.fill_diagonal(distance, 0)
    theirs = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage="average",
                                     distance_threshold=0.7).fit_predict(distance)
    assert adjusted_rand_score(ours, theirs) == 1.0


def test_a_missing_pair_counts_as_zero() -> None:
    # 0-1 and 1-2 at 0.9, 0-2 not given: {0, 1} then 2 at (0 + 0.9) / 2 = 0.45
    i, j, s = np.array([0, 1]), np.array([1, 2]), np.array([0.9, 0.9])
    assert average_linkage(3, i, j, s, threshold=0.5, cap=10).tolist() == [0, 0, 1]
    assert average_linkage(3, i, j, s, threshold=0.45, cap=10).tolist() == [0, 0, 0]


def test_no_group_grows_past_the_cap() -> None:
    n = 30
    i, j = np.triu_indices(n, 1)
    labels = average_linkage(n, i, j, np.full(len(i), 0.9), threshold=0.5, cap=4)
    assert np.bincount(labels).max() == 4


def test_a_pair_given_twice_counts_once_with_its_larger_value() -> None:
    i, j, s = np.array([0, 1]), np.array([1, 0]), np.array([0.2, 0.8])
    assert average_linkage(2, i, j, s, threshold=0.7, cap=10).tolist() == [0, 0]


@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.8])
def test_labels_number_the_groups_by_their_first_item(threshold: float) -> None:
    rng = np.random.default_rng(0)
    i, j = np.triu_indices(20, 1)
    labels = average_linkage(20, i, j, rng.random(len(i)), threshold=threshold, cap=20)
    firsts = [int(np.flatnonzero(labels == g)[0]) for g in range(labels.max() + 1)]
    assert firsts == sorted(firsts) and labels[0] == 0
