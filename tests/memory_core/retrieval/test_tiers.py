"""The standard tier cuts a long memory at `SHOWN_CHARS` and says how long it is; the full
tier sends it whole."""

from __future__ import annotations

from memory_core.model.records import Memory
from memory_core.retrieval.tiers import SHOWN_CHARS, render_text, render_tier

MB = "x" * 1_048_576


def test_the_standard_tier_cuts_a_long_memory_and_says_its_length() -> None:
    item = render_tier(Memory.new(MB, "fact", id="big"), "standard")
    assert item["content"] == "x" * (SHOWN_CHARS - 1) + "…"
    assert item["content_chars"] == 1_048_576
    assert render_text(item).endswith(
        "   - cut: the first 2,000 of 1,048,576 characters (the full tier sends all)")


def test_a_memory_of_the_limit_is_sent_whole_with_no_note() -> None:
    item = render_tier(Memory.new("y" * SHOWN_CHARS, "fact"), "standard")
    assert item["content"] == "y" * SHOWN_CHARS and "content_chars" not in item
    assert "cut:" not in render_text(item)


def test_the_full_tier_sends_it_whole() -> None:
    assert render_tier(Memory.new(MB, "fact"), "full")["content"] == MB
