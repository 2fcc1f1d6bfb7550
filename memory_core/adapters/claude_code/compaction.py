"""Reading a Claude Code compaction summary into its sections.

When its context fills up, Claude Code has the model summarise the conversation and writes
the result as a user line with `isCompactSummary: true`: a preamble ("This session is being
continued from a previous conversation that ran out of context. The conversation is
summarized below:"), the model's `Analysis:` (its notes while reading), the `Summary:` in
numbered sections, and a closing instruction ("Please continue the conversation from where
we left it off ..."). Versions word and mark the sections differently: `1. Primary Request
and Intent:`, `## 1. Primary Request and Intent`, `**Errors and Fixes:**`, `4. **Errors
and fixes**:`, with the text on the heading's line or below it, `<analysis>` / `<summary>`
tags instead of the labels.

`parse_compact_summary` keeps the summary (without preamble, analysis and closing) and cuts
it at the headings it recognises by their words (`SECTION_WORDS`); a numbered heading it
does not recognise is kept as an `other` section when it follows the numbering. A summary
with fewer than two recognised sections is not trusted to be cut: it comes back whole, with
no sections, and the caller keeps it as one memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREAMBLE = re.compile(r"\A\s*This session is being continued from a previous conversation"
                      r"[^\n]*?(?:summari[sz]ed below:?|\n)", re.IGNORECASE)
CLOSING = re.compile(r"^\s*(?:Please continue the conversation from where we left|If you need "
                     r"specific details from before compaction)", re.IGNORECASE | re.MULTILINE)
SUMMARY_MARK = re.compile(r"^[ \t]*(?:<summary>|#{0,4}[ \t]*(?:\*\*)?Summary(?:\*\*)?:?"
                          r"(?:\*\*)?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
TAGS = re.compile(r"</?(?:summary|analysis)>", re.IGNORECASE)
HEADING = re.compile(r"(?:(?P<number>\d{1,2})[.)][ \t]*)?(?P<title>[A-Za-z][^:]{2,60}?)[ \t]*"
                     r"(?::[ \t]*(?P<rest>.*))?")
TITLE = re.compile(r"[A-Za-z][A-Za-z0-9 &/,'()-]*")
#: Section keys and the words that name them in a heading, tried in order.
SECTION_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("request", ("primary request", "request and intent", "user intent", "user's request",
                 "intent")),
    ("messages", ("user message",)),
    ("concepts", ("technical concept", "key concept", "concepts")),
    ("files", ("files and code", "code section", "files modified", "files")),
    ("errors", ("error", "fixes", "bugs", "issues encountered")),
    ("problems", ("problem solving", "problems solved", "troubleshooting")),
    ("pending", ("pending", "remaining task", "outstanding", "todo", "to-do", "open task")),
    ("current", ("current work", "current state", "work in progress")),
    ("next", ("next step",)),
    ("decisions", ("decision",)),
)
MIN_SECTIONS = 2


@dataclass(frozen=True)
class Section:
    """One section of a summary: its key (`SECTION_WORDS`, or "other"), its heading as
    written and its text."""

    key: str
    title: str
    text: str


@dataclass(frozen=True)
class CompactSummary:
    """A compaction summary taken apart."""

    #: The summary itself: no preamble, analysis or closing instruction.
    summary: str
    analysis_chars: int = 0
    #: Empty when the headings were not recognised well enough to cut.
    sections: tuple[Section, ...] = ()

    def section(self, key: str) -> Section | None:
        """The first section with `key`, if any."""
        return next((s for s in self.sections if s.key == key), None)


def section_key(title: str) -> str | None:
    """The section a heading names, by its words; None when none fits.

    >>> section_key("Errors and fixes")
    'errors'
    """
    words = title.lower()
    for key, names in SECTION_WORDS:
        if any(name in words for name in names):
            return key
    return None


def _heading(line: str, last_number: int, seen: set[str]
             ) -> tuple[str, str, str, int] | None:
    """(key, title, text after it, number) when `line` is a section heading.

    A heading starts its line (no indent, no bullet) and is numbered past the last number,
    marked (`## ...`, `**...**`), or alone on its line with a colon; an unnumbered one
    naming a section already seen is text of that section ("**Error**: ...")."""
    if line[:1].isspace() or line.startswith(("- ", "* ", "+ ")):
        return None
    stripped = line.strip()
    marked = stripped.startswith(("#", "**", "__"))
    plain = re.sub(r"^#{1,4}[ \t]*", "", stripped).replace("**", "").replace("__", "")
    match = HEADING.fullmatch(plain)
    if match is None or not TITLE.fullmatch(match["title"]):
        return None
    number = int(match["number"]) if match["number"] else None
    rest = (match["rest"] or "").strip()
    has_colon = match["rest"] is not None
    if number is not None:
        if number <= last_number or not (has_colon or marked):
            return None
    elif not (marked or (has_colon and not rest)):
        return None
    title = match["title"].strip()
    key = section_key(title)
    if key is None and number is not None and not rest:
        key = "other"
    if key is None or (number is None and key in seen):
        return None
    return key, title, rest, number or last_number


def sections_of(summary: str) -> tuple[Section, ...]:
    """The sections of `summary` (see the module doc); empty when not sure."""
    found: list[tuple[str, str, list[str]]] = []
    last_number = 0
    seen: set[str] = set()
    fenced = False  # inside a ``` code block nothing is a heading
    for line in summary.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        head = None if fenced else _heading(line, last_number, seen)
        if head is not None:
            key, title, rest, last_number = head
            seen.add(key)
            found.append((key, title, [rest] if rest else []))
        elif found:
            found[-1][2].append(line)
    known = {key for key, _, _ in found if key != "other"}
    if len(known) < MIN_SECTIONS:
        return ()
    return tuple(Section(key, title, _dedent("\n".join(lines)).strip())
                 for key, title, lines in found)


def _dedent(text: str) -> str:
    lines = text.splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)


def parse_compact_summary(text: str) -> CompactSummary:
    """`text` (a compact summary line's text) taken apart; see the module doc."""
    body = PREAMBLE.sub("", text, count=1)
    closing = CLOSING.search(body)
    if closing:
        body = body[:closing.start()]
    mark = SUMMARY_MARK.search(body)
    analysis = ""
    if mark:
        analysis, body = body[:mark.start()], body[mark.end():]
    summary = TAGS.sub("", body).strip()
    analysis = re.sub(r"\A\s*(?:<analysis>|Analysis:)", "", TAGS.sub("", analysis),
                      flags=re.IGNORECASE).strip()
    if not summary:  # only an analysis, or a summary mark at the very end
        summary, analysis = analysis, ""
    return CompactSummary(summary, len(analysis), sections_of(summary))
