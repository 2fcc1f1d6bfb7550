"""BM25 over session windows: a memory scored as the text of itself and its neighbours.

In a conversation a question's words are spread over a few turns: "When did Caroline go to
the LGBTQ support group?" names Caroline in one turn, the support group in the next, and the
answer sits beside them. Scoring each turn as the window of turns around it (the document
expansion of Dai & Callan 2019 and the passage windows of Callan 1994) lets those matches add
up, with BM25's saturation and length normalisation over the window, which a share of the best
neighbour's score (`context.lift`) cannot: on the LoCoMo dev split BM25 over windows of two
turns each side ranks recall@5 0.67 alone, the lift 0.63 (docs/decisions/0001-score-fusion.md).

It is computed at query time over the candidate pool (the engines' candidates and the
session neighbours `context.py` found), so nothing is stored and nothing goes stale:

* every pool memory's window is its own text and its neighbours' (same session and type,
  ordered by `created_at`, up to `window` each side);
* the collection statistics are the pool's windows: N, each query term's document frequency
  and the average window length. A pool is chosen for matching the query, so its IDF is
  measured on a biased sample; on LoCoMo dev this ranked within 0.01 of the conversation's
  own statistics, and the query terms rare in the pool still weigh most;
* `BM25(w) = sum_t idf(t) * tf(t, w) * (k1 + 1) / (tf(t, w) + k1 * (1 - b + b * |w| / avg))`
  with Lucene's `idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`, k1 = 1.2, b = 0.75
  (Robertson & Zaragoza 2009; recall@5 on LoCoMo dev stayed within 0.68-0.69 for k1 0.9-2,
  b 0.4-0.9);
* a neighbour's words count `context_weight` (0.5) times, in the term frequencies and the
  window's length: the memory's own words weigh most, and of two memories sharing a window
  the one that holds the query's words ranks first (on LoCoMo dev, shares 0.5-1 all ranked
  recall@5 0.69-0.70 in hybrid);
* each term's score is split between the memory and its neighbours by their share of its
  frequency in the window, so `own + added` is the window's score and `neighbour` is the
  neighbour that brought most of it.

Tokens follow the store's full-text settings (`store/tokenisation.py`): lower case, ASCII
folding, stop words and the Snowball stemmer of the index's language (PyStemmer). The stop
words are scikit-learn's English list (the Glasgow IR group's, 318 words, BSD licence); it
drops question words ("when", "what", "how") that LanceDB's shorter list keeps, which matters
for questions against dialogue.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: scikit-learn's `ENGLISH_STOP_WORDS` (sklearn/feature_extraction/_stop_words.py, BSD-3),
#: copied so that a search does not import scikit-learn; a test keeps them equal.
ENGLISH_STOP_WORDS = frozenset("""
    a about above across after afterwards again against all almost alone along already also
    although always am among amongst amoungst amount an and another any anyhow anyone anything
    anyway anywhere are around as at back be became because become becomes becoming been before
    beforehand behind being below beside besides between beyond bill both bottom but by call can
    cannot cant co con could couldnt cry de describe detail do done down due during each eg
    eight either eleven else elsewhere empty enough etc even ever every everyone everything
    everywhere except few fifteen fifty fill find fire first five for former formerly forty
    found four from front full further get give go had has hasnt have he hence her here
    hereafter hereby herein hereupon hers herself him himself his how however hundred i ie if in
    inc indeed interest into is it its itself keep last latter latterly least less ltd made many
    may me meanwhile might mill mine more moreover most mostly move much must my myself name
    namely neither never nevertheless next nine no nobody none noone nor not nothing now nowhere
    of off often on once one only onto or other others otherwise our ours ourselves out over own
    part per perhaps please put rather re same see seem seemed seeming seems serious several she
    should show side since sincere six sixty so some somehow someone something sometime
    sometimes somewhere still such system take ten than that the their them themselves then
    thence there thereafter thereby therefore therein thereupon these they thick thin third this
    those though three through throughout thru thus to together too top toward towards twelve
    twenty two un under until up upon us very via was we well were what whatever when whence
    whenever where whereafter whereas whereby wherein whereupon wherever whether which while
    whither who whoever whole whom whose why will with within without would yet you your yours
    yourself yourselves
""".split())

K1, B = 1.2, 0.75
_WORD = re.compile(r"[0-9a-z]+")
_WORD_UNICODE = re.compile(r"[^\W_]+")
#: ASCII text to its `_WORD` words with `str.split`: upper case to lower, every other
#: character that is not a digit or a letter to a space. For ASCII text
#: `text.translate(_ASCII_WORDS).split() == _WORD.findall(text.lower())`, in about half the
#: time the regular expression takes (a test holds them equal).
_ASCII_WORDS = str.maketrans({chr(c): (chr(c).lower() if chr(c).isalnum() else " ")
                              for c in range(128)})


@dataclass(frozen=True)
class Analyzer:
    """Text to BM25 terms, as the store's full-text index is set (`store.fts.settings()`)."""

    lower_case: bool = True
    ascii_folding: bool = True
    remove_stop_words: bool = True
    stem: bool = True
    language: str = "English"
    max_token_length: int = 40

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Analyzer:
        """The analyzer of a store's full-text settings (unknown keys are ignored)."""
        return cls(**{k: settings[k] for k in (
            "lower_case", "ascii_folding", "remove_stop_words", "stem", "language",
            "max_token_length") if k in settings})

    def terms(self, text: str) -> list[str]:
        """The terms of `text`, in order (the last `TERM_CACHE` texts' are remembered: the
        same memories come back as candidates of many searches).

        >>> Analyzer().terms("When was Caroline at the LGBTQ support groups?")
        ['carolin', 'lgbtq', 'support', 'group']
        >>> Analyzer().terms("Café déployé")
        ['cafe', 'deploy']
        """
        return list(_terms(self, text))


#: How many texts' terms are remembered (about 40 terms each).
TERM_CACHE = 8192


@lru_cache(maxsize=TERM_CACHE)
def _terms(analyzer: Analyzer, text: str) -> tuple[str, ...]:
    if analyzer.ascii_folding and not text.isascii():
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    if analyzer.ascii_folding and analyzer.lower_case:  # the text is ASCII now
        words = text.translate(_ASCII_WORDS).split()
    else:
        words = _WORD_UNICODE.findall(text.lower() if analyzer.lower_case else text)
    known = _word_terms(analyzer)
    terms = list(map(known.get, words))  # None: a word not met yet
    if None in terms:
        for at, w in enumerate(words):
            if terms[at] is None:
                if len(known) >= WORD_CACHE:
                    known.clear()
                terms[at] = known[w] = _term_of(analyzer, w) or ""
    return tuple(filter(None, terms))  # "" is a dropped word


#: Words whose terms each analyzer remembers (a vocabulary rarely holds more); past it, it
#: starts afresh.
WORD_CACHE = 200_000


@lru_cache(maxsize=8)
def _word_terms(analyzer: Analyzer) -> dict[str, str]:
    """word -> its term ("" for a stop word or one too long), filled as words are met."""
    return {}


def _term_of(analyzer: Analyzer, word: str) -> str | None:
    """The term of one lower-cased, folded word under `analyzer`, or None when dropped."""
    stop = (ENGLISH_STOP_WORDS if analyzer.remove_stop_words
            and analyzer.language.lower() == "english" else frozenset())
    if len(word) > analyzer.max_token_length or word in stop:
        return None
    stemmer = _stemmer(analyzer.language) if analyzer.stem else None
    return stemmer.stemWord(word) if stemmer is not None else word


@lru_cache(maxsize=8)
def _stemmer(language: str) -> Any:
    """PyStemmer's Snowball stemmer for `language`, or None when it has none."""
    import Stemmer

    name = language.lower()
    return Stemmer.Stemmer(name) if name in Stemmer.algorithms() else None


@dataclass(frozen=True)
class WindowScore:
    """A memory's BM25 over its window, split into its own text's part and its neighbours'."""

    score: float
    own: float
    added: float
    neighbour: str  # the neighbour that brought most of `added` ("" when none did)


def window_bm25(query: str, texts: Mapping[str, str], windows: Mapping[str, Sequence[str]],
                analyzer: Analyzer, *, weight: float = 1.0, k1: float = K1, b: float = B
                ) -> dict[str, WindowScore]:
    """Each memory of `windows` (id -> its neighbours' ids) scored by BM25 over the text of
    itself and its neighbours (`texts`: id -> content; a missing text counts as empty), a
    neighbour's words counting `weight` times (term frequency and length), with the windows
    as the collection. Memories no query term matches are left out.

    >>> texts = {"q": "Caroline: have you been to the support group?", "a": "Yes, yesterday.",
    ...          "x": "The weather is nice."}
    >>> scores = window_bm25("When did Caroline go to the support group?", texts,
    ...                      {"q": ["a"], "a": ["q"], "x": []}, Analyzer())
    >>> sorted(scores), scores["a"].own, scores["a"].neighbour
    (['a', 'q'], 0.0, 'q')
    """
    query_terms = set(analyzer.terms(query))
    if not query_terms or not windows:
        return {}
    counts: dict[str, Counter[str]] = {}
    lengths: dict[str, int] = {}
    none: Counter[str] = Counter()  # shared by the texts holding no query term; never changed
    for d in {*windows, *(n for ns in windows.values() for n in ns)}:
        terms = _terms(analyzer, texts.get(d, ""))
        matched = [t for t in terms if t in query_terms]
        counts[d], lengths[d] = (Counter(matched) if matched else none), len(terms)
    window_len = {d: lengths[d] + weight * sum(lengths[n] for n in ns)
                  for d, ns in windows.items()}
    average = (sum(window_len.values()) / len(window_len)) or 1.0
    df: Counter[str] = Counter()
    for d, ns in windows.items():
        df.update({t for m in (d, *ns) for t in counts[m]})
    n_docs = len(windows)
    idf = {t: math.log(1 + (n_docs - df[t] + 0.5) / (df[t] + 0.5)) for t in df}
    out: dict[str, WindowScore] = {}
    for d, ns in windows.items():
        matching = [counts[n] for n in ns if counts[n]]  # neighbours holding a query term
        if not counts[d] and not matching:
            continue  # no query term in the window: it scores nothing
        norm = k1 * (1 - b + b * window_len[d] / average)
        own = added = 0.0
        brought: dict[str, float] = {}
        for t in idf:
            tf_own = counts[d][t]
            tf = tf_own + weight * sum(c[t] for c in matching) if matching else tf_own
            if not tf:
                continue
            score = idf[t] * tf * (k1 + 1) / (tf + norm)
            own += score * tf_own / tf
            added += score * (tf - tf_own) / tf
            for n in ns:
                if counts[n][t]:
                    brought[n] = brought.get(n, 0.0) + score * weight * counts[n][t] / tf
        if own + added > 0:
            best = max(brought.items(), key=lambda p: (p[1], p[0]), default=("", 0.0))[0]
            out[d] = WindowScore(own + added, own, added, best)
    return out
