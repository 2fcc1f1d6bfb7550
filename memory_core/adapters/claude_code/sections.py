"""What a compaction summary's sections hold that is worth recalling: lessons (error and fix
pairs), decisions and pending tasks, as plain text.

- `items` splits a section into its top-level items: bullets (`-`, `*`, `+`, `1.`) with the
  lines nested under them, or paragraphs when there are no bullets; an introduction ending
  with a colon and "None." items are left out.
- `lessons` reads the errors-and-fixes section: one lesson per item, its fix taken from a
  nested `Fix:` / `Solution:` / `Resolution:` / "Fixed by ..." line, from " - Fix: ..." on
  the item's own line,
  or from a following item that is only a fix. Items without a fix are lessons too: the
  error is what is worth knowing next time.
- `decisions` takes every item of a decisions section, and from the sections that state
  the work's course (request, concepts, problem solving, current work) each sentence that
  says a decision was made ("decided", "chose", "opted", "settled on", "rather than",
  "Decision:").
- `pending` takes every item of the pending-tasks section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_core.adapters.claude_code.compaction import CompactSummary

BULLET = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+•]|\d{1,2}[.)])[ \t]+(?P<text>.*)$")
NONE = re.compile(r"^\W*(?:none|n/a|nothing|no (?:pending|outstanding|remaining|open|"
                  r"explicit|further|errors?|issues?|tasks?)\b|there (?:are|were) no\b|"
                  r"all (?:tasks )?(?:are )?(?:done|complete))", re.IGNORECASE)
FIX_LABEL = (r"(?:\*\*)?(?:fix(?:ed)?(?: applied)?|solution|resolution|resolved|correction|"
             r"how (?:it was )?fixed)(?:\*\*)?(?: by)?[ \t]*(?:\*\*)?[ \t]*[:\-–—]")
FIX_LINE = re.compile(rf"^\W*(?:{FIX_LABEL}|(?:fixed|resolved|solved) by\b)[ \t]*(?P<fix>.*)$",
                      re.IGNORECASE)
FIX_INLINE = re.compile(rf"[ \t][-–—][ \t]*{FIX_LABEL}[ \t]*(?P<fix>.*)$", re.IGNORECASE)
DECISION_LABEL = re.compile(r"^\W*(?:design |key |architectural )?decisions?(?:\*\*)?[ \t]*"
                            r"(?:made)?[ \t]*:", re.IGNORECASE)
DECISION_CUE = re.compile(r"\b(?:decided|decides|chose|chosen|opted|settled on|agreed (?:to|on|"
                          r"that)|going with|in favou?r of|rather than)\b", re.IGNORECASE)
#: The sections whose sentences are searched for decisions.
DECISION_SECTIONS = ("request", "concepts", "problems", "current")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(])")
#: Shorter items ("-", "...") are not items; shorter sentences do not state a decision.
MIN_ITEM_CHARS = 4
MIN_SENTENCE_CHARS = 12


@dataclass(frozen=True)
class Item:
    """One item of a section: its first line and the lines nested under it."""

    head: str
    body: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """Head and body, one line each, without markup."""
        return "\n".join(plain(line) for line in (self.head, *self.body) if plain(line))


@dataclass(frozen=True)
class Lesson:
    """An error met during the work and, when the summary says it, its fix."""

    error: str
    fix: str | None = None
    #: The item's other lines, in order, its fix written "Fix: ...".
    lines: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The error, then the item's lines ("Fix: ..." among them)."""
        return "\n".join((self.error, *self.lines))


def plain(line: str) -> str:
    """`line` without its bullet, bold/italic marks and surrounding space.

    >>> plain("  - **Error**: boom")
    'Error: boom'
    """
    bullet = BULLET.match(line)
    text = bullet["text"] if bullet else line
    return re.sub(r"\*\*|__", "", text).strip()


def items(text: str) -> list[Item]:
    """The top-level items of a section's `text` (see the module doc)."""
    lines = [line.rstrip() for line in text.splitlines()]
    bullets = [BULLET.match(line) for line in lines]
    indents = [len(b["indent"].expandtabs(4)) for b in bullets if b]
    if not indents:
        paragraphs = re.split(r"\n\s*\n", text.strip())
        found = [Item(p.splitlines()[0], tuple(p.splitlines()[1:])) for p in paragraphs]
    else:
        top = min(indents)
        found = []
        for line, bullet in zip(lines, bullets, strict=True):
            if not line.strip():
                continue
            if bullet and len(bullet["indent"].expandtabs(4)) <= top + 1:
                found.append(Item(line))
            elif found:
                found[-1] = Item(found[-1].head, (*found[-1].body, line))
            elif not line.strip().endswith(":"):  # prose before the first bullet
                found.append(Item(line))
    return [item for item in found
            if len(item.text) >= MIN_ITEM_CHARS and not NONE.match(plain(item.head))
            and not (not item.body and plain(item.head).endswith(":"))]


def _lesson(item: Item) -> Lesson:
    head, fix = plain(item.head), None
    lines: list[str] = []
    inline = FIX_INLINE.search(head)
    if inline:
        head, fix = head[:inline.start()].strip(), inline["fix"].strip()
        lines.append(f"Fix: {fix}")
    for line in item.body:
        text = plain(line)
        found = FIX_LINE.match(text)
        if found and fix is None and found["fix"].strip():
            fix = found["fix"].strip()
            lines.append(f"Fix: {fix}")
        elif text:
            lines.append(text)
    return Lesson(head, fix, tuple(lines))


def lessons(summary: CompactSummary) -> list[Lesson]:
    """The error/fix pairs of the errors section, one per item."""
    section = summary.section("errors")
    found: list[Lesson] = []
    for item in items(section.text) if section else []:
        alone = FIX_LINE.match(plain(item.head))
        if alone and found and found[-1].fix is None:  # "- Error: ..." then "- Fix: ..."
            last, fix = found[-1], alone["fix"].strip()
            found[-1] = Lesson(last.error, fix, (*last.lines, f"Fix: {fix}",
                                                 *(plain(line) for line in item.body)))
        else:
            found.append(_lesson(item))
    return found


def decisions(summary: CompactSummary) -> list[str]:
    """The decisions the summary states (see the module doc), in order, each once."""
    found: list[str] = []
    for section in summary.sections:
        if section.key == "decisions":
            found += [item.text for item in items(section.text)]
        elif section.key in DECISION_SECTIONS:
            for item in items(section.text) or [Item(section.text)]:
                found += _stated(item)
    return list(dict.fromkeys(found))


def _stated(item: Item) -> list[str]:
    """The sentences of `item` that state a decision; a nested one keeps its item's label."""
    label = plain(item.head).split(":", 1)[0] if ":" in plain(item.head) else ""
    out = []
    for number, line in enumerate((item.head, *item.body)):
        text = plain(line)
        labelled = DECISION_LABEL.match(text)
        sentences = SENTENCE.split(DECISION_LABEL.sub("", text).strip() if labelled else text)
        for index, sentence in enumerate(sentences):
            if (labelled and index == 0) or (DECISION_CUE.search(sentence)
                                              and len(sentence) >= MIN_SENTENCE_CHARS):
                prefix = f"{label}: " if number and label and len(label) <= 60 else ""
                out.append(prefix + sentence.strip())
    return [text for text in out if text]


def pending(summary: CompactSummary) -> list[str]:
    """The pending tasks, one text each ("None." gives none)."""
    section = summary.section("pending")
    return [item.text for item in items(section.text)] if section else []
