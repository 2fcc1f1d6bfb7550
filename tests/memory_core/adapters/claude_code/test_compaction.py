"""Compaction summaries taken apart (`compaction`) and what their sections teach
(`sections`), on the headings different Claude Code versions write."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_core.adapters.claude_code.compaction import (
    CompactSummary,
    Section,
    parse_compact_summary,
    section_key,
)
from memory_core.adapters.claude_code.sections import decisions, items, lessons, pending

PREAMBLE = ("This session is being continued from a previous conversation that ran out of "
            "context. The conversation is summarized below:\n")
CLOSING = ("\nPlease continue the conversation from where we left it off without asking the "
           "user any further questions. Continue with the last task that you were asked to "
           "work on.")

NUMBERED = PREAMBLE + """Analysis:
Let me chronologically analyze the conversation. The user wants retries.

Summary:
1. Primary Request and Intent:
   Make the fetcher retry on HTTP 429.

2. Key Technical Concepts:
   - Exponential backoff
   - We chose jitter rather than fixed delays.

4. Errors and fixes:
   - **Tests slept for a minute**: the backoff really slept.
      - Fix: inject the sleep function.
      - User feedback: "tests must stay under 10 s".
   - **ImportError: cannot import name 'Retry'**
      - Cause: it moved in urllib3 2.
      - Fixed by importing it from urllib3.util.

6. All user messages:
   ```yaml
pending: this is code, not a heading
   ```

7. Pending Tasks:
   - Document the retry settings.
   - None of the others.

8. Current Work:
   Writing the README section.""" + CLOSING


def test_numbered_summary_keeps_summary_and_sections_and_drops_the_rest() -> None:
    parsed = parse_compact_summary(NUMBERED)
    assert parsed.summary.startswith("1. Primary Request and Intent:")
    assert parsed.summary.endswith("Writing the README section.")
    assert "Please continue" not in parsed.summary and "chronologically" not in parsed.summary
    assert parsed.analysis_chars == len("Let me chronologically analyze the conversation. "
                                        "The user wants retries.")
    assert [(s.key, s.title) for s in parsed.sections] == [
        ("request", "Primary Request and Intent"), ("concepts", "Key Technical Concepts"),
        ("errors", "Errors and fixes"), ("messages", "All user messages"),
        ("pending", "Pending Tasks"), ("current", "Current Work")]
    assert parsed.section("request") == Section(
        "request", "Primary Request and Intent", "Make the fetcher retry on HTTP 429.")


def test_lessons_decisions_and_pending_of_a_numbered_summary() -> None:
    parsed = parse_compact_summary(NUMBERED)
    assert [lesson.text for lesson in lessons(parsed)] == [
        "Tests slept for a minute: the backoff really slept.\n"
        "Fix: inject the sleep function.\n"
        "User feedback: \"tests must stay under 10 s\".",
        "ImportError: cannot import name 'Retry'\nCause: it moved in urllib3 2.\n"
        "Fix: importing it from urllib3.util.",
    ]
    assert decisions(parsed) == ["We chose jitter rather than fixed delays."]
    # "None of the others." is not a task.
    assert pending(parsed) == ["Document the retry settings."]


MARKDOWN = PREAMBLE + """<analysis>
Notes.
</analysis>

<summary>
## 1. Primary Request and Intent
- Cache the last good rates.

## 3. Files and Code Sections
- `cache.py`: new.

**Errors and Fixes:**
- **Half-written cache**: JSONDecodeError while a report read it. - Fix: write a temp file \
and os.replace it.
- Error: the cache path was relative.
- Fix: resolve it against XDG_CACHE_HOME.
**Unicode error**: the feed had a BOM.

## 5. Problem Solving
Decision: keep one cache file per base currency. Reports read the cache only when the fetch \
fails, and we settled on printing the rates' date.

## 7. Pending Tasks
None.
</summary>"""


def test_markdown_and_bold_headings_inline_fixes_and_split_pairs() -> None:
    parsed = parse_compact_summary(MARKDOWN)
    assert parsed.analysis_chars == len("Notes.")
    assert [s.key for s in parsed.sections] == ["request", "files", "errors", "problems",
                                                "pending"]
    found = lessons(parsed)
    assert [(lesson.error, lesson.fix) for lesson in found] == [
        ("Half-written cache: JSONDecodeError while a report read it.",
         "write a temp file and os.replace it."),
        # a "- Fix:" item right after an item without one is that item's fix
        ("Error: the cache path was relative.", "resolve it against XDG_CACHE_HOME."),
    ]
    # "**Unicode error**:" names a section already seen: it is text of the errors section,
    # nested under the last item, not a heading of its own.
    assert found[1].lines == ("Fix: resolve it against XDG_CACHE_HOME.",
                              "Unicode error: the feed had a BOM.")
    assert decisions(parsed) == ["keep one cache file per base currency.",
                                 "Reports read the cache only when the fetch fails, and we "
                                 "settled on printing the rates' date."]
    assert pending(parsed) == []


def test_unnumbered_bold_headings_with_text_below() -> None:
    parsed = parse_compact_summary(PREAMBLE + "Summary:\n**Primary Request and Intent:**\n"
                                   "Add --offline.\n\n**Pending Tasks:**\n- Write docs\n")
    assert [(s.key, s.text) for s in parsed.sections] == [
        ("request", "Add --offline."), ("pending", "- Write docs")]


@pytest.mark.parametrize("text", [
    PREAMBLE + "The branch is complete; all 164 tests pass. The user wants a PR description.",
    PREAMBLE + "Summary:\nErrors: none worth noting.\nThe work is done.",
    # one recognised heading is not enough to trust the cut
    PREAMBLE + "Summary:\n1. Primary Request and Intent: ship it.\nThen we shipped it.",
])
def test_a_summary_without_recognised_headings_comes_back_whole(text: str) -> None:
    parsed = parse_compact_summary(text)
    assert parsed.sections == () and parsed.summary
    assert parsed.summary in text and not parsed.summary.startswith("This session")
    assert lessons(parsed) == [] and decisions(parsed) == [] and pending(parsed) == []


def test_numbered_lines_inside_a_section_are_not_headings() -> None:
    parsed = parse_compact_summary(
        "Summary:\n1. Primary Request and Intent:\n   Fix the report.\n"
        "2. Errors and fixes:\n1. Error: totals wrong\n2. Errors and fixes: none\n"
        "3. Pending Tasks:\n   - Ship")
    assert [s.key for s in parsed.sections] == ["request", "errors", "pending"]
    assert parsed.section("errors") == Section(
        "errors", "Errors and fixes", "1. Error: totals wrong\n2. Errors and fixes: none")


@pytest.mark.parametrize("title, key", [
    ("Primary Request and Intent", "request"), ("User Intent", "request"),
    ("Key Technical Concepts", "concepts"), ("Files and Code Sections", "files"),
    ("Errors and Fixes", "errors"), ("Errors Encountered", "errors"),
    ("Problem Solving", "problems"), ("All user messages", "messages"),
    ("Pending Tasks", "pending"), ("Remaining tasks", "pending"),
    ("Current Work", "current"), ("Optional Next Step", "next"),
    ("Key Decisions", "decisions"), ("Weather", None),
])
def test_section_key_by_words(title: str, key: str | None) -> None:
    assert section_key(title) == key


def test_items_of_paragraphs_and_of_nested_bullets() -> None:
    assert [i.text for i in items("First thing.\n\nSecond thing,\nover two lines.")] == [
        "First thing.", "Second thing,\nover two lines."]
    nested = items("Intro:\n- first\n  - first.a\n  - first.b\n- second\n* third\n- N/A\n- ..")
    assert [(i.head, i.body) for i in nested] == [
        ("- first", ("  - first.a", "  - first.b")), ("- second", ()), ("* third", ())]


STYLES = {
    "numbered": lambda n, title: f"{n}. {title}:",
    "markdown": lambda n, title: f"## {n}. {title}",
    "bold": lambda n, title: f"**{title}:**",
    "bold-numbered": lambda n, title: f"{n}. **{title}**:",
}
TITLES = {"request": "Primary Request and Intent", "concepts": "Key Technical Concepts",
          "files": "Files and Code Sections", "errors": "Errors and fixes",
          "problems": "Problem Solving", "pending": "Pending Tasks",
          "current": "Current Work", "next": "Optional Next Step"}
BODY = st.lists(st.text(alphabet="abcdefghij ,.`", min_size=1, max_size=30)
                .map(lambda s: "   - x" + s.rstrip()), min_size=1, max_size=3)


@given(style=st.sampled_from(sorted(STYLES)),
       chosen=st.lists(st.sampled_from(sorted(TITLES)), min_size=2, max_size=8, unique=True),
       bodies=st.lists(BODY, min_size=8, max_size=8))
def test_round_trip_any_heading_style(style: str, chosen: list[str],
                                      bodies: list[list[str]]) -> None:
    """A summary written with any version's headings comes back as the sections written."""
    written = [(key, bodies[n]) for n, key in enumerate(chosen)]
    text = "\n\n".join(STYLES[style](n, TITLES[key]) + "\n" + "\n".join(lines)
                       for n, (key, lines) in enumerate(written, start=1))
    parsed = parse_compact_summary(PREAMBLE + "Analysis:\nnotes\n\nSummary:\n" + text + CLOSING)
    assert parsed == CompactSummary(text, len("notes"), tuple(
        Section(key, TITLES[key], "\n".join(line[3:] for line in lines))
        for key, lines in written))
