"""The structure of a markdown decision record: title, number, header fields, sections.

A file holds one record (herd's `# HDR-0033: ...`, superagents' `# ADR-0002: ...`, adr-tools'
`# 1. Record architecture decisions`, MADR) or several (SpecKit's `## ADR-001: ...` sections
under a document title). Header fields come from, in order of precedence: the front matter,
`| Field | Value |` tables and `**Status:** Accepted` / `Date: ...` lines before the first
section or in a `Metadata` / `Status` section, and the first line of a `## Status` section.
Headings inside code fences and HTML comments are not headings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_core.adapters.decisions.fields import field_name, parse_front_matter

#: `ADR-001: Title`, `HDR-0033 - Title`, `ADR 7 Title`: an upper-case prefix and a number.
KEY_TITLE = re.compile(r"^(?P<prefix>[A-Z]{2,8})[-_ ]?(?P<digits>\d{1,6})"
                       r"(?:\s*[:.\-–—|]\s*|\s+|$)(?P<title>.*)$")
#: adr-tools: `1. Record architecture decisions`.
NUMBER_TITLE = re.compile(r"^(?P<digits>\d{1,6})\.\s+(?P<title>\S.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_FIELD_LINE = re.compile(r"^(?P<key>[A-Za-z][\w \-/]{0,30}?)\s*:\s+(?P<value>\S.*)$")
_STATUS_REF = re.compile(r"\b(?:superseded|replaced)\s+by\b:?\s*(?P<refs>\S.*)$", re.IGNORECASE)
_REF_LINE = re.compile(r"^(?P<kind>superseded\s+by|replaced\s+by|supersedes|replaces)\b:?\s*"
                       r"(?P<refs>\S.*)$", re.IGNORECASE)
HEADER_SECTIONS = {"metadata", "status", "document information", "properties", "info",
                   "meta", "record", "decision metadata"}
DECISION_SECTIONS = {"decision", "decisions", "the decision", "decision outcome", "outcome",
                     "resolution", "verdict"}
RATIONALE_SECTIONS = {"rationale", "decision rationale", "justification", "why"}
_TABLE_HEADERS = {"field", "key", "property", "name", "attribute", "item"}
REFERENCE_FIELDS = ("supersedes", "superseded_by")
SUMMARY_CHARS = 600
SUMMARY_ENOUGH = 120


@dataclass(frozen=True)
class Heading:
    index: int  # 0-based line index
    level: int
    text: str


@dataclass
class RawRecord:
    """One decision record of a file, as written (values not yet checked)."""

    line: int  # 1-based line of its title heading (1 for a whole file)
    text: str
    title: str | None
    prefix: str | None = None
    digits: str | None = None
    #: Canonical field name -> value, precedence applied (see the module doc).
    fields: dict[str, Any] = field(default_factory=dict)
    #: Every header field as written (front matter keys, table and bold-field keys).
    written: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, list[str]] = field(default_factory=dict)
    #: ("supersedes" | "superseded_by", value as written), from every header source.
    references: list[tuple[str, Any]] = field(default_factory=list)
    document_title: str | None = None
    #: Whether the file holds several records (SpecKit style), this being one of them.
    multi: bool = False

    @property
    def looks_like_decision(self) -> bool:
        """Whether anything marks this as a decision: a status, a number in the title, or a
        Decision section."""
        return (self.fields.get("status") is not None or self.digits is not None
                or any(name in DECISION_SECTIONS for name in self.sections))


def _headings(lines: Sequence[str], start: int) -> list[Heading]:
    return [Heading(index, len(match[1]), match[2].strip())
            for index, _ in _prose(lines, start) if (match := _HEADING.match(lines[index]))]


def _section_name(heading: str) -> str:
    text = re.sub(r"^\d+(\.\d+)*[.)]?\s+", "", heading.replace("*", "").replace("_", " "))
    return re.sub(r"\s+", " ", text.strip().rstrip(":").strip().lower())


def _clean(value: str) -> str:
    value = value.strip()
    while len(value) > 4 and value[:2] in ("**", "__") and value.endswith(value[:2]):
        value = value[2:-2].strip()
    return value


def _prose(lines: Sequence[str], start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, stripped line) of the lines from `start` on that are outside code fences and
    HTML comments."""
    fence, comment = "", False
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif comment:
            comment = "-->" not in stripped
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif stripped.startswith("<!--"):
            comment = "-->" not in stripped
        else:
            yield index, stripped


def header_fields(lines: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(key as written, value) of `| key | value |` rows and `**Key:** value` lines."""
    for _, text in _prose(lines):
        if text.startswith("|"):
            cells = [c.strip() for c in text.strip("|").split("|")]
            if len(cells) != 2 or re.fullmatch(r":?-{2,}:?", cells[0].replace(" ", "")):
                continue
            key, value = _clean(cells[0]).rstrip(":").strip(), _clean(cells[1])
            if key.lower() in _TABLE_HEADERS and value.lower() in ("value", "values"):
                continue
            if key and value:
                yield key, value
            continue
        plain = re.sub(r"^[-*+]\s+", "", text.replace("**", "").replace("__", ""))
        if (match := _FIELD_LINE.match(plain)) and len(match["key"].split()) <= 4:
            yield match["key"].strip(), _clean(match["value"])


def _references(lines: Sequence[str]) -> Iterator[tuple[str, str]]:
    for _, text in _prose(lines):
        plain = re.sub(r"^[-*+]\s+", "", text.replace("**", "").replace("__", ""))
        if match := _REF_LINE.match(plain):
            kind = match["kind"].lower()
            yield ("superseded_by" if "by" in kind else "supersedes"), match["refs"].strip()


def _fill(record: RawRecord, key: str, value: Any) -> None:
    record.written.setdefault(key, value)
    name = field_name(key)
    if name in REFERENCE_FIELDS:
        record.references.append((name, value))
    else:
        record.fields.setdefault(name, value)


def _record(lines: Sequence[str], heads: Sequence[Heading], start: int, end: int,
            title_head: Heading | None, front: dict[str, Any]) -> RawRecord:
    level = title_head.level if title_head else 0
    inner = [h for h in heads if start <= h.index < end and h is not title_head
             and h.level > level]
    title = title_head.text if title_head else None
    record = RawRecord(line=(title_head.index if title_head else start) + 1,
                       text="\n".join(lines[start:end]).strip("\n") + "\n", title=title)
    if title is not None and (match := KEY_TITLE.match(title) or NUMBER_TITLE.match(title)):
        record.prefix = match.groupdict().get("prefix")
        record.digits, record.title = match["digits"], match["title"].strip() or None
    for key, value in front.items():
        _fill(record, key, value)
    body_from = title_head.index + 1 if title_head else start
    preamble = lines[body_from:inner[0].index if inner else end]
    for position, head in enumerate(inner):
        stop = next((h.index for h in inner[position + 1:] if h.level <= head.level), end)
        record.sections.setdefault(_section_name(head.text), list(lines[head.index + 1:stop]))
    header_parts = [preamble] + [record.sections[n] for n in HEADER_SECTIONS
                                 if n in record.sections]
    for part in header_parts:
        for key, value in header_fields(part):
            _fill(record, key, value)
        record.references.extend(_references(part))
    status_lines = [t for _, t in _prose(record.sections.get("status", [])) if t]
    if status_lines and "status" not in record.fields:
        _fill(record, "Status", _clean(status_lines[0]))
    status = record.fields.get("status")
    if isinstance(status, str) and (match := _STATUS_REF.search(status)):
        record.references.append(("superseded_by", match["refs"]))
    return record


def split_records(text: str, where: str) -> tuple[list[RawRecord], list[tuple[int, str]]]:
    """The records of one file, and the (line, heading) of record-level sections that belong
    to none (SpecKit's "Open Questions Resolutions" after its ADRs)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff").split("\n")
    front, body_start = parse_front_matter(lines, where)
    heads = _headings(lines, body_start)
    h1 = next((h for h in heads if h.level == 1), None)
    keyed = [h for h in heads if h.level >= 2 and (m := KEY_TITLE.match(h.text))
             and m["title"].strip()]
    file_says_record = ("status" in {field_name(k) for k in front}
                        or (h1 is not None and bool(KEY_TITLE.match(h1.text)
                                                    or NUMBER_TITLE.match(h1.text))))
    if keyed and not file_says_record:
        level = min(h.level for h in keyed)
        starts = [h for h in keyed if h.level == level]
        preamble = _record(lines, heads, body_start, starts[0].index, h1, {})
        if "status" not in preamble.fields:
            records, outside = [], []
            for head in heads:
                if head.level < level or head.index < starts[0].index:
                    continue
                if head.level == level and head not in starts:
                    outside.append((head.index + 1, head.text))
                if head in starts:
                    end = next((h.index for h in heads if h.index > head.index
                                and h.level <= level), len(lines))
                    record = _record(lines, heads, head.index, end, head, {})
                    record.document_title = h1.text if h1 else None
                    record.multi = True
                    for key, value in front.items():  # file-wide defaults
                        if field_name(key) not in (*REFERENCE_FIELDS, "key", "title"):
                            record.written.setdefault(key, value)
                            record.fields.setdefault(field_name(key), value)
                    records.append(record)
            return records, outside
    record = _record(lines, heads, body_start, len(lines), h1, front)
    record.text = "\n".join(lines).strip("\n") + "\n"
    if record.title is None and isinstance(front.get("title"), str):
        record.title = front["title"].strip() or None
    return [record], []


def _blocks(lines: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """("para" | "list" | "other", lines) blocks up to the first sub-heading."""
    block: list[str] = []
    kind = ""
    for _, text in _prose(lines):
        if text.startswith("#"):
            break
        if not text or text.startswith("|") or re.fullmatch(r"[-*_ ]{3,}", text):
            if block:
                yield kind, block
            block, kind = [], ""
            continue
        if not block:
            kind = "list" if re.match(r"^([-*+]|\d+[.)])\s+", text) else "para"
        block.append(text)
    if block:
        yield kind, block


def summary_of(section: Sequence[str]) -> str:
    """The first paragraph(s) of a Decision section, `**Summary**:` labels and wrapping bold
    removed, up to SUMMARY_CHARS (cut at a word)."""
    parts: list[str] = []
    for kind, block in _blocks(section):
        text = (" " if kind == "para" else "\n").join(block)
        label = re.match(r"^\*\*([^*]{1,30}?):?\*\*:?\s*", text)
        if label and parts:
            break
        if label and label[1].strip().lower() in ("summary", "decision", "tl;dr", "tldr"):
            text = text[label.end():]
        parts.append(_clean(text))
        if sum(len(p) for p in parts) >= SUMMARY_ENOUGH:
            break
    summary = "\n\n".join(p for p in parts if p)
    if len(summary) > SUMMARY_CHARS:
        summary = summary[:SUMMARY_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return summary


def first_sentence(section: Sequence[str], limit: int = 240) -> str | None:
    """The first sentence of a section's first paragraph (for `why`)."""
    for kind, block in _blocks(section):
        if kind == "para":
            text = _clean(" ".join(block))
            sentence = re.split(r"(?<=[.!?])\s+", text, maxsplit=1)[0]
            return sentence if len(sentence) <= limit else sentence[:limit].rsplit(" ", 1)[0]
    return None
