"""c-TF-IDF cluster labels: each topic named by its own words, weights worked out by hand
from W(t, c) = tf(t, c) * log(1 + A / f(t))."""

from __future__ import annotations

import math

import pytest

from memory_core.model.errors import InvalidMapParamsError
from memory_core.projection import cluster_labels
from memory_core.projection.labels import BOILERPLATE, class_tfidf

LANCEDB = [
    "Rebuilt the LanceDB vector index after the nightly import",
    "LanceDB index recall dropped when the vector index had too few partitions",
    "The IVF index of LanceDB needs retraining once the table doubles",
    "Vector search in LanceDB skips the index for unindexed rows",
    "Decision: keep one LanceDB table and index the vector column",
    "Pattern: compact the LanceDB table before rebuilding the index",
]
REACT = [
    "React component rerenders because the props object is new each time",
    "Split the settings page into small React components with local state",
    "Insight: a React component holding derived state goes stale",
    "Moved the modal into its own React component with hooks",
    "React hooks must run in the same order in every component render",
    "The table component in React memoises rows by key",
]


def test_two_obvious_topics_are_named_by_their_own_words() -> None:
    labels = cluster_labels(LANCEDB + REACT, [0] * 6 + [1] * 6)
    assert labels == {0: "index · lancedb · vector", 1: "react · component · hooks"}


def test_cluster_ids_are_kept_whatever_they_are() -> None:
    labels = cluster_labels(LANCEDB + REACT, [7] * 6 + [-1] * 6, top=1)
    assert labels == {7: "index", -1: "react"}


def test_weights_by_hand_for_a_two_class_example() -> None:
    # class 0: apple x2, banana x1; class 1: banana x1, cherry x1.
    # A = 5 words / 2 classes = 2.5; f(apple) = 2, f(banana) = 2, f(cherry) = 1.
    weights = class_tfidf(["apple apple", "banana", "banana cherry"], [0, 0, 1])
    assert weights.classes == (0, 1)
    assert weights.terms == ("apple", "banana", "cherry")
    w = {(c, t): float(weights.weights[i, j]) for i, c in enumerate(weights.classes)
         for j, t in enumerate(weights.terms)}
    assert w[0, "apple"] == pytest.approx(2 * math.log(1 + 2.5 / 2))
    assert w[0, "banana"] == pytest.approx(1 * math.log(1 + 2.5 / 2))
    assert w[0, "cherry"] == 0
    assert w[1, "apple"] == 0
    assert w[1, "banana"] == pytest.approx(1 * math.log(1 + 2.5 / 2))
    assert w[1, "cherry"] == pytest.approx(1 * math.log(1 + 2.5 / 1))
    # cherry (log 3.5) outranks banana (log 2.25) in class 1; apple leads class 0
    assert cluster_labels(["apple apple", "banana", "banana cherry"], [0, 0, 1]) == {
        0: "apple · banana", 1: "cherry · banana"}


def test_stop_words_boilerplate_ids_digits_and_short_words_are_not_terms() -> None:
    texts = ["Insight: the HDR-0044 and a UI of it was noted again in 2026 for v2 ok",
             "Skill idea: we had lancedb, lancedb3 and LANCEDB here"]
    weights = class_tfidf(texts, [0, 1])
    assert weights.terms == ("lancedb",)  # lancedb3 is no word; LANCEDB is lancedb
    assert {"insight", "skill", "idea", "noted", "again"} <= BOILERPLATE
    assert cluster_labels(texts, [0, 1]) == {0: "", 1: "lancedb"}


def test_no_words_at_all_gives_empty_labels() -> None:
    assert cluster_labels(["the and", "", "42"], [0, 1, 1]) == {0: "", 1: ""}
    assert cluster_labels([], []) == {}


def test_ties_are_broken_alphabetically_and_top_limits_the_terms() -> None:
    assert cluster_labels(["zebra yak xenon walrus"], [0], top=3) == {
        0: "walrus · xenon · yak"}
    assert cluster_labels(["zebra yak xenon walrus"], [0], top=10) == {
        0: "walrus · xenon · yak · zebra"}


def test_labels_are_deterministic() -> None:
    texts, clusters = LANCEDB + REACT, [0, 1] * 6
    assert cluster_labels(texts, clusters) == cluster_labels(texts, clusters)


@pytest.mark.parametrize(("texts", "clusters", "top", "message"), [
    (["a", "b"], [0], 3, "2 texts and 1 clusters"),
    (["a", None], [0, 1], 3, "take text, got NoneType"),
    (["a"], [0], 0, "top must be a whole number >= 1, got 0"),
    (["a"], [0], True, "got True"),
])
def test_bad_input_is_one_clear_error(texts: list[str], clusters: list[int], top: int,
                                      message: str) -> None:
    with pytest.raises(InvalidMapParamsError, match=message):
        cluster_labels(texts, clusters, top=top)
