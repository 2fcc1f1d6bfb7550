"""Rule-based drafts of a reflection (`method: rule_based`): the group's distinctive
terms by class-based TF-IDF, and the members' sentences that cover them, most central member
first. No model and no network; every character of a draft is a member's.

Terms: each group is one class of c-TF-IDF (Grootendorst, 2022, BERTopic, equation 2, as
the map's cluster labels: `projection/labels.py`), the eligible memories left ungrouped one
class more, so a word every group uses (a project's name) weighs little and the words of
this group's episode weigh most. Kept sparse: a class x term matrix of counts, one row read
per group.

Draft: the members' sentences, each scored by the weight of the group's top terms it holds
(each term counted once per draft) times its member's centrality (cosine to the group's
centroid). The best is taken, the terms it covers stop counting, and so on while a sentence
adds an uncovered term, up to `SENTENCES` sentences; a draft that would be one member's
whole text gets the most central sentence left (a reflection that repeats one memory is that
memory again). Taken whole from the members and joined by a space, in the order chosen: a
reviewer sees what the members say, in their words, never a sentence a rule made up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from memory_core.projection.labels import TOKEN_PATTERN, stop_words

#: Terms kept per group, sentences per draft, characters per sentence (cut at a space).
TERMS = 6
SENTENCES = 3
SENTENCE_CHARS = 300
#: A sentence ends at . ! or ? before white space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class GroupTerms:
    """c-TF-IDF weights of every group: `weights[c]` is group c's row over `terms`."""

    terms: np.ndarray  # of str
    weights: csr_matrix

    def top(self, group: int, count: int = TERMS) -> list[tuple[str, float]]:
        """Group `group`'s `count` heaviest terms with their weights, heaviest first, ties
        alphabetical."""
        start, end = self.weights.indptr[group], self.weights.indptr[group + 1]
        if start == end:
            return []
        columns, data = self.weights.indices[start:end], self.weights.data[start:end]
        order = np.lexsort((self.terms[columns], -data))[:count]
        return [(str(self.terms[columns[k]]), float(data[k])) for k in order]


def group_terms(texts: Sequence[str], labels: np.ndarray, groups: int) -> GroupTerms:
    """c-TF-IDF of `groups` classes (labels 0..groups-1; -1 is the ungrouped class, which
    counts in the corpus but gets no row) over `texts`."""
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(lowercase=True, token_pattern=TOKEN_PATTERN,
                                 stop_words=sorted(stop_words()), dtype=np.float64)
    try:
        docs = vectorizer.fit_transform(list(texts))
    except ValueError:  # not a word left in any text
        return GroupTerms(np.array([], dtype=object), csr_matrix((groups, 0)))
    classes = np.where(labels >= 0, labels, groups)  # the ungrouped: one class more
    member = csr_matrix((np.ones(len(labels)), (classes, np.arange(len(labels)))),
                        shape=(groups + 1, len(labels)))
    counts = (member @ docs).tocsr()
    per_term = np.asarray(counts.sum(axis=0)).ravel()
    used = len(np.unique(classes))
    average = counts.sum() / max(1, used)
    idf = np.log(1.0 + average / np.maximum(per_term, 1.0))
    weights = (counts[:groups] @ csr_matrix((idf, (np.arange(len(idf)), np.arange(len(idf)))),
                                            shape=(len(idf), len(idf)))).tocsr()
    return GroupTerms(np.asarray(vectorizer.get_feature_names_out(), dtype=object), weights)


def sentences(text: str) -> list[str]:
    """`text`'s sentences, stripped, each cut to `SENTENCE_CHARS` at a space (a substring of
    `text` still).

    >>> sentences("Tests pass. Ship it!\\nNext")
    ['Tests pass.', 'Ship it!', 'Next']
    """
    out = []
    for part in _SENTENCE_END.split(text):
        part = part.strip()
        if len(part) > SENTENCE_CHARS:
            cut = part.rfind(" ", 0, SENTENCE_CHARS)
            part = part[:cut if cut > 0 else SENTENCE_CHARS].rstrip()
        if part:
            out.append(part)
    return out


def _holds(text: str, term: str) -> bool:
    """Whether lower-cased `text` has `term` as a token of `TOKEN_PATTERN` (letters with no
    word character either side, not followed by a digit): a substring search first, faster
    than tokenising every sentence of every group."""
    start = text.find(term)
    while start >= 0:
        end = start + len(term)
        before = text[start - 1] if start else " "
        after = text[end:end + 2]
        if not (before.isalnum() or before == "_") and not (
                after[:1].isalnum() or after[:1] == "_"
                or (after[:1] == "-" and after[1:2].isdigit())):
            return True
        start = text.find(term, start + 1)
    return False


def draft(contents: Sequence[str], centrality: Sequence[float],
          terms: Sequence[tuple[str, float]]) -> str:
    """The draft of a group whose members say `contents` (most central first) with their
    `centrality`, covering `terms` (term, weight); the most central member's first sentence
    when no sentence holds a term.

    >>> draft(["The cache misses at start. Nobody knew.", "Warming it fixed the misses."],
    ...       [0.9, 0.8], [("cache", 2.0), ("misses", 1.0), ("warming", 1.0)])
    'The cache misses at start. Warming it fixed the misses.'
    """
    weight = dict(terms)
    pool: list[tuple[float, int, str, set[str]]] = []
    for rank, (text, central) in enumerate(zip(contents, centrality, strict=True)):
        for sentence in sentences(text):
            lowered = sentence.lower()
            words = {t for t in weight if t in lowered and _holds(lowered, t)}
            pool.append((max(float(central), 0.0), rank, sentence, words))
    chosen: list[str] = []
    covered: set[str] = set()
    while pool and len(chosen) < SENTENCES:
        gains = [item[0] * sum(weight[w] for w in item[3] - covered) for item in pool]
        at = max(range(len(pool)), key=lambda k: (gains[k], -pool[k][1]))
        if gains[at] <= 0:
            break
        best = pool[at]
        if best[2] not in chosen:
            chosen.append(best[2])
        covered |= best[3]
        del pool[at]
    if not chosen:
        chosen = [next((s for text in contents for s in sentences(text)), "")]
    whole = {text.strip() for text in contents}
    # a draft that is one member's whole text would be that memory again: add the most
    # central sentence left until it is not (a reflection is written from several)
    while " ".join(chosen) in whole:
        rest = [item for item in pool if item[2] not in chosen]
        if not rest:
            break
        chosen.append(max(rest, key=lambda item: (item[0], -item[1]))[2])
    return " ".join(chosen)
