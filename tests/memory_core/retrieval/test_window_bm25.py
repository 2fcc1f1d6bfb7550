"""BM25 over session windows against scores computed by hand, the split of a window's score
between a memory and its neighbours, and the analyzer following the store's settings."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.retrieval.window_bm25 import ENGLISH_STOP_WORDS, Analyzer, window_bm25

PLAIN = Analyzer(remove_stop_words=False, stem=False)


def _bm25(tf: float, df: int, n: int, length: float, average: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))


def test_window_scores_match_bm25_computed_by_hand() -> None:
    texts = {"a": "alpha beta", "b": "gamma", "c": "alpha alpha"}
    scores = window_bm25("alpha gamma", texts, {"a": ["b"], "b": ["a"], "c": []}, PLAIN)
    # windows: a = b = {alpha, beta, gamma} (3 words), c = {alpha, alpha} (2 words)
    average = (3 + 3 + 2) / 3
    alpha_ab, gamma_ab = _bm25(1, 3, 3, 3, average), _bm25(1, 2, 3, 3, average)
    assert scores["a"].score == pytest.approx(alpha_ab + gamma_ab)
    assert scores["c"].score == pytest.approx(_bm25(2, 3, 3, 2, average))
    # a's own word is alpha, gamma comes from b; for b it is the other way round
    assert (scores["a"].own, scores["a"].added) == pytest.approx((alpha_ab, gamma_ab))
    assert scores["a"].neighbour == "b" and scores["b"].neighbour == "a"
    assert (scores["b"].own, scores["b"].added) == pytest.approx((gamma_ab, alpha_ab))
    assert scores["c"].added == 0 and scores["c"].neighbour == ""


def test_a_neighbours_words_count_the_weight_and_own_words_rank_first() -> None:
    texts = {"x": "alpha", "y": "beta", "z": "delta"}
    windows = {"x": ["y"], "y": ["x"], "z": []}
    equal = window_bm25("alpha", texts, windows, PLAIN, weight=1.0)
    assert equal["x"].score == pytest.approx(equal["y"].score)
    half = window_bm25("alpha", texts, windows, PLAIN, weight=0.5)
    # y's window holds half an alpha in 1.5 words: tf 0.5, length 1.5 (x: tf 1, length 1.5)
    average = (1.5 + 1.5 + 1) / 3
    assert half["y"].score == pytest.approx(_bm25(0.5, 2, 3, 1.5, average))
    assert half["x"].score == pytest.approx(_bm25(1, 2, 3, 1.5, average))
    assert half["x"].score > half["y"].score
    for s in half.values():
        assert s.own + s.added == pytest.approx(s.score)


def test_memories_no_query_word_reaches_are_left_out() -> None:
    texts = {"x": "alpha", "y": "beta", "z": "gamma"}
    scores = window_bm25("alpha", texts, {"x": [], "y": ["x"], "z": []}, PLAIN)
    assert sorted(scores) == ["x", "y"]
    assert window_bm25("the of", texts, {"x": []}, Analyzer()) == {}  # only stop words
    assert window_bm25("alpha", texts, {}, PLAIN) == {}


def test_the_analyzer_follows_the_stores_full_text_settings() -> None:
    assert Analyzer().terms("The deploys FAILED in Zürich") == ["deploy", "fail", "zurich"]
    assert Analyzer(stem=False).terms("The deploys failed") == ["deploys", "failed"]
    assert Analyzer(remove_stop_words=False, stem=False).terms("the deploys") == [
        "the", "deploys"]
    assert Analyzer(ascii_folding=False, stem=False).terms("Zürich café") == [
        "zürich", "café"]
    assert Analyzer(max_token_length=5, stem=False).terms("short lengthy") == ["short"]
    # a language the stemmers do not know leaves words as they are; English stop words are
    # not applied to another language
    assert Analyzer(language="Klingon").terms("the deploys") == ["the", "deploys"]
    assert Analyzer(language="German").terms("die Häuser") == ["die", "haus"]
    settings = {"base_tokenizer": "simple", "language": "English", "lower_case": True,
                "ascii_folding": True, "remove_stop_words": True, "stem": False,
                "max_token_length": 40}
    assert Analyzer.from_settings(settings) == Analyzer(stem=False)


def test_the_stop_words_are_scikit_learns_english_list() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SKLEARN

    assert frozenset(SKLEARN) == ENGLISH_STOP_WORDS


def test_remembered_words_keep_each_analyzers_terms_and_stay_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import memory_core.retrieval.window_bm25 as module

    monkeypatch.setattr(module, "WORD_CACHE", 3)
    stemmed, plain = Analyzer(max_token_length=39), Analyzer(stem=False, max_token_length=39)
    text = "deploys failed twice while the caches warmed"
    first = stemmed.terms(text)
    assert first == ["deploy", "fail", "twice", "cach", "warm"]
    assert plain.terms(text) == ["deploys", "failed", "twice", "caches", "warmed"]
    assert stemmed.terms(text + " rollbacks") == [*first, "rollback"]  # past the bound
    assert len(module._word_terms(stemmed)) <= 3


@given(st.text(max_size=80) | st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
@settings(max_examples=300, deadline=None)
def test_the_ascii_fast_path_splits_words_as_the_regular_expression_does(text: str) -> None:
    import re
    import unicodedata

    import memory_core.retrieval.window_bm25 as module

    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    assert folded.translate(module._ASCII_WORDS).split() == re.findall(
        r"[0-9a-z]+", folded.lower())
    plain = Analyzer(stem=False, remove_stop_words=False, max_token_length=1000)
    module._terms.cache_clear()
    assert plain.terms(text) == re.findall(r"[0-9a-z]+", folded.lower())
