"""Rule-based drafts: every sentence of a draft is a member's, the group's distinctive terms
chosen by c-TF-IDF against the rest of the corpus."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.consolidation import consolidation_candidates
from memory_core.consolidation.drafts import SENTENCES, draft, group_terms
from memory_core.store import MemoryStore
from tests.memory_core.consolidation.clusters import build


def _only_member_text(text: str, members: list[str]) -> bool:
    """Whether `text` is whole substrings of the members joined by single spaces (the one
    character a draft adds), found by trying every member substring at every place."""
    reach = {0}
    for at in range(len(text) + 1):
        if at not in reach:
            continue
        if at == len(text):
            return True
        for member in members:
            for end in range(at + 1, len(text) + 1):
                if text[at:end] not in member:
                    break
                if end == len(text):
                    return True
                if text[end] == " ":
                    reach.add(end + 1)
    return not text


def test_the_check_catches_made_up_text() -> None:
    assert _only_member_text("Cache misses. Warm it.", ["Cache misses.", "Warm it."])
    assert not _only_member_text("Cache misses. Warm it now.", ["Cache misses.", "Warm it."])
    assert not _only_member_text("Cache misses.  Warm it.", ["Cache misses.", "Warm it."])


def test_every_candidates_draft_holds_only_text_of_its_members(store: MemoryStore) -> None:
    build(store)
    found = consolidation_candidates(store)
    assert found
    for candidate in found:
        members = [m.content for m in store.get_many(list(candidate.members)).values()]
        assert candidate.draft and _only_member_text(candidate.draft, members)


def test_the_terms_are_what_sets_a_group_apart() -> None:
    texts = ["the cache misses", "the cache warms", "the export fails", "the export retries",
             "the plant needs water"]
    terms = group_terms(texts, np.array([0, 0, 1, 1, -1]), 2)
    assert [t for t, _ in terms.top(0)][:1] == ["cache"]
    assert [t for t, _ in terms.top(1)][:1] == ["export"]


def test_the_draft_covers_new_terms_sentence_by_sentence() -> None:
    text = draft(["The cache misses at start. Nobody knew.", "Warming it fixed the misses."],
                 [0.9, 0.8], [("cache", 2.0), ("misses", 1.0), ("warming", 1.0)])
    assert text == "The cache misses at start. Warming it fixed the misses."


texts = st.lists(st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]),
                         min_size=1, max_size=200), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(st.sampled_from(["cache", "misses", "warm", "start", "fixed"]),
                       max_size=5))
def test_a_draft_never_holds_text_its_members_do_not(members: list[str], words: list[str]
                                                     ) -> None:
    text = draft(members, [1.0 / (k + 1) for k in range(len(members))],
                 [(w, 1.0) for w in words])
    assert _only_member_text(text, members)
    assert text.count(" ") <= sum(m.count(" ") for m in members) + SENTENCES - 1


def test_a_draft_is_not_one_members_whole_text_when_the_others_say_more() -> None:
    # "A cache." alone is member 0 again, with "B cache." member 1: the next sentence joins
    text = draft(["A cache.", "A cache. B cache.", "C thing."], [0.9, 0.8, 0.7],
                 [("cache", 1.0)])
    assert text == "A cache. B cache. C thing."
    assert draft(["Same text.", "Same text."], [0.9, 0.8], []) == "Same text."
