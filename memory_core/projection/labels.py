"""Cluster labels from class-based TF-IDF: the few words that set each cluster apart.

c-TF-IDF treats all the texts of one class (cluster) as one document (Grootendorst, 2022,
"BERTopic: Neural topic modeling with a class-based TF-IDF procedure", arXiv:2203.05794,
equation 2):

    W(t, c) = tf(t, c) * log(1 + A / f(t))

tf(t, c) is how often term t occurs in class c, f(t) how often it occurs in all classes,
A the average number of words per class. BERTopic's implementation (`ClassTfidfTransformer`)
also divides each class's tf by its total (L1), which leaves the order of terms within a
class, and so the labels, unchanged; the paper's raw counts are used here. Tokens are
lowercase runs of >= 3 letters (digits break them, and an identifier like `HDR-0044` is
not a word); English stop words (scikit-learn's list) and memory-store boilerplate
(`BOILERPLATE`) are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memory_core.model.errors import InvalidMapParamsError
from memory_core.model.schema import MEMORY_TYPES
from memory_core.model.untrusted import shown

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

#: Words of a memory store that name no topic: the memory types' words (agents open
#: memories with "Insight:", "Pattern:", "Skill idea:") and the demo corpus' stock openings
#: ("Noted again:", "Reproduced locally:", "Root cause found:", "New topic opened:").
BOILERPLATE: frozenset[str] = frozenset(
    {word for name in MEMORY_TYPES for word in name.split("_")}
    | {"noted", "again", "decided", "reproduced", "locally", "found", "opened"}
)
#: Lowercase runs of >= 3 letters; one followed by a digit (`HDR-0044`, `DF_12`) is an id.
TOKEN_PATTERN = r"(?u)\b[^\W\d_]{3,}\b(?![-_]?\d)"
#: Between the terms of a label.
SEPARATOR = " · "


@dataclass(frozen=True)
class ClassTfidf:
    """c-TF-IDF weights: `weights[i, j]` is the weight of `terms[j]` in `classes[i]`."""

    classes: tuple[int, ...]
    terms: tuple[str, ...]
    weights: np.ndarray


def stop_words() -> frozenset[str]:
    """scikit-learn's English stop words plus `BOILERPLATE`."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) | BOILERPLATE


def _check(texts: Sequence[str], clusters: Sequence[int]) -> None:
    if len(texts) != len(clusters):
        raise InvalidMapParamsError(
            f"cluster labels need one cluster per text, got {len(texts)} texts and "
            f"{len(clusters)} clusters")
    for text in texts:
        if not isinstance(text, str):
            raise InvalidMapParamsError(
                f"cluster labels take text, got {type(text).__name__} {shown(text)}")


def _class_counts(texts: Sequence[str], clusters: Sequence[int]
                  ) -> tuple[tuple[int, ...], tuple[str, ...], csr_matrix]:
    """(classes, terms, class x term counts), vectorised: one sparse product."""
    from scipy.sparse import csr_matrix
    from sklearn.feature_extraction.text import CountVectorizer

    codes = np.asarray(clusters, dtype=np.int64)
    classes, rows = np.unique(codes, return_inverse=True)
    vectorizer = CountVectorizer(lowercase=True, token_pattern=TOKEN_PATTERN,
                                 stop_words=sorted(stop_words()))
    try:
        docs = vectorizer.fit_transform(list(texts))
    except ValueError:  # no text has a single word left: an empty vocabulary
        return tuple(int(c) for c in classes), (), csr_matrix((len(classes), 0))
    member = csr_matrix((np.ones(len(codes)), (rows, np.arange(len(codes)))),
                        shape=(len(classes), len(codes)))
    return (tuple(int(c) for c in classes), tuple(vectorizer.get_feature_names_out()),
            (member @ docs).tocsr())


def class_tfidf(texts: Sequence[str], clusters: Sequence[int]) -> ClassTfidf:
    """The c-TF-IDF weight of every term in every class (see the module docstring).

    >>> w = class_tfidf(["lancedb index", "react hooks"], [0, 1])
    >>> round(float(w.weights[0, w.terms.index("lancedb")]), 4)  # 1 * log(1 + 2 / 1)
    1.0986
    """
    _check(texts, clusters)
    classes, terms, counts = _class_counts(texts, clusters)
    if not terms:
        return ClassTfidf(classes, terms, np.zeros((len(classes), 0)))
    tf = counts.toarray().astype(np.float64)
    per_term = tf.sum(axis=0)  # f(t): every term of the vocabulary occurs at least once
    average = tf.sum() / len(classes)  # A: words per class
    return ClassTfidf(classes, terms, tf * np.log(1.0 + average / per_term))


def cluster_labels(texts: Sequence[str], clusters: Sequence[int], *, top: int = 3
                   ) -> dict[int, str]:
    """Each class's `top` c-TF-IDF terms joined by " · " (e.g. "lancedb · index ·
    vector"), best first, ties in alphabetical order; "" for a class with no words left.
    Pure: the same texts give the same labels. Every class gets a label, noise (-1)
    included (it takes part in f(t) and A, as in BERTopic).

    >>> cluster_labels(["LanceDB vector index", "LanceDB index rebuild",
    ...                 "React component state", "React hooks state"], [0, 0, 1, 1], top=2)
    {0: 'index · lancedb', 1: 'react · state'}
    """
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidMapParamsError(f"top must be a whole number >= 1, got {shown(top)}")
    weights = class_tfidf(texts, clusters)
    labels: dict[int, str] = {}
    terms = np.asarray(weights.terms, dtype=object)
    for i, cls in enumerate(weights.classes):
        row = weights.weights[i]
        present = np.flatnonzero(row > 0)
        # best weight first; terms are sorted, so a stable sort keeps ties alphabetical
        best = present[np.argsort(-row[present], kind="stable")][:top]
        labels[cls] = SEPARATOR.join(terms[best])
    return labels
