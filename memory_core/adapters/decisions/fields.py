"""The header fields of markdown decision records: front matter, dates, statuses, references.

Decision records (herd's HDRs, superagents' and SpecKit's ADRs, adr-tools, MADR) carry
their status, date, deciders and supersedes links in YAML front matter, a `| Field | Value |`
table, `**Status:** Accepted` lines or a `## Status` section. This module reads the values;
`markdown` finds them in a file.

PyYAML is not a memlens dependency, so `parse_front_matter` reads the subset of YAML that front
matter uses: `key: value` scalars (quoted or not, `null`, `true`/`false`, numbers), lists as
`- item` lines or `[a, b]`, one level of nested `key: value` mappings, and `|` / `>` block
text. Other values are kept as their raw text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from memory_core.model.errors import ExportFormatError

#: Field names as written (lower case, `-` for spaces and `_`) -> the field they mean.
FIELD_ALIASES: dict[str, str] = {
    **dict.fromkeys(("status", "state", "decision-status"), "status"),
    **dict.fromkeys(("date", "created", "created-at", "date-created", "decision-date",
                     "decided-on"), "date"),
    **dict.fromkeys(("updated", "last-updated", "updated-at", "last-modified", "modified"),
                    "updated"),
    **dict.fromkeys(("decision-maker", "decider", "owner", "agent"), "decision_maker"),
    **dict.fromkeys(("deciders", "decision-makers", "approvers", "approved-by"), "deciders"),
    **dict.fromkeys(("author", "authors"), "authors"),
    **dict.fromkeys(("supersedes", "replaces", "supersede"), "supersedes"),
    **dict.fromkeys(("superseded-by", "supersededby", "replaced-by"), "superseded_by"),
    **dict.fromkeys(("tags", "keywords", "labels"), "tags"),
    **dict.fromkeys(("id", "number", "adr", "hdr", "key"), "key"),
    "title": "title", "project": "project", "importance": "importance",
}
#: Status words (the first one found in the value decides) -> memlens status.
STATUS_WORDS: dict[str, str] = {
    **dict.fromkeys(("accepted", "approved", "adopted", "agreed", "decided", "active",
                     "implemented", "final", "done", "proposed", "draft", "open", "pending",
                     "review", "wip", "discussion"), "active"),
    **dict.fromkeys(("deprecated", "rejected", "withdrawn", "abandoned", "obsolete",
                     "retired", "declined", "cancelled", "canceled"), "archived"),
    **dict.fromkeys(("superseded", "replaced"), "superseded"),
}
NOTHING = {"", "null", "none", "~", "-", "n/a", "na", "tbd"}
MONTHS = {name: number for number, names in enumerate(
    ("jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
     "aug august", "sep sept september", "oct october", "nov november", "dec december"),
    start=1) for name in names.split()}
WEEKDAYS = {"mon", "monday", "tue", "tues", "tuesday", "wed", "wednesday", "thu", "thurs",
            "thursday", "fri", "friday", "sat", "saturday", "sun", "sunday"}

_KEY_LINE = re.compile(r"^(?P<key>[^\s:#\-][^:]*?)\s*:(?:\s+(?P<rest>.*?))?\s*$")
_BLOCK = ("|", ">", "|-", ">-", "|+", ">+")


def field_name(key: str) -> str:
    """The canonical field a written key means ("Superseded by" -> "superseded_by"), or the
    key itself, normalised, when it is not one memlens knows."""
    norm = re.sub(r"[\s_]+", "-", key.strip().strip("*_:` ").strip().lower())
    return FIELD_ALIASES.get(norm, norm)


def _fail(where: str, number: int, reason: str) -> ExportFormatError:
    return ExportFormatError(f"{where}: front matter line {number}: {reason}")


def _unquote(text: str, where: str, number: int) -> str | None:
    if text[:1] in ('"', "'"):
        quote = text[0]
        end = text.rfind(quote)
        if end == 0:
            raise _fail(where, number, f"the quote in {text!r} is never closed")
        inner = text[1:end]
        if quote == "'":
            return inner.replace("''", "'")
        return re.sub(r'\\(["\\])', r"\1", inner).replace("\\n", "\n")
    return None


def _split_flow(text: str) -> list[str]:
    items, current, quote = [], "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == ",":
            items.append(current.strip())
            current = ""
            continue
        current += char
    if current.strip():
        items.append(current.strip())
    return items


def scalar(text: str, where: str, number: int) -> Any:
    """One YAML value of the subset: quoted text, `[a, b]`, null, a boolean, a number, text."""
    text = text.strip()
    quoted = _unquote(text, where, number)
    if quoted is not None:
        return quoted
    if text.startswith("[") and text.endswith("]") and "[" not in text[1:-1]:
        return [scalar(item, where, number) for item in _split_flow(text[1:-1])]
    text = re.split(r"\s+#", text, maxsplit=1)[0].strip()
    lowered = text.lower()
    if lowered in ("null", "~", ""):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return text


def _indented_block(lines: Sequence[str], start: int) -> int:
    """The index after the block of blank, indented or `- ` lines that starts at `start`."""
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")
                                or lines[end].startswith("- ")):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def _nested(lines: Sequence[str], where: str, first: int) -> Any:
    items = [(first + i, line.strip()) for i, line in enumerate(lines) if line.strip()
             and not line.strip().startswith("#")]
    if not items:
        return None
    if all(text.startswith("- ") or text == "-" for _, text in items):
        return [scalar(text[1:], where, number) for number, text in items]
    mapping: dict[str, Any] = {}
    for number, text in items:
        match = _KEY_LINE.match(text)
        if match is None:
            raise _fail(where, number, f"{text!r} is neither `- item` nor `key: value` "
                                       f"(memlens reads a simple subset of YAML)")
        mapping[match["key"].strip()] = scalar(match["rest"] or "", where, number)
    return mapping


def parse_front_matter(lines: Sequence[str], where: str) -> tuple[dict[str, Any], int]:
    """(fields, index of the first line after the front matter); ({}, 0) without one.
    A front matter that is never closed, or a line that is not `key: value`, is an error
    naming `where` and the line."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")),
                 None)
    if close is None:
        raise ExportFormatError(f"{where}: the front matter opened on line 1 is never closed "
                                f"(no `---` line); the file may be truncated")
    body, data = lines[1:close], {}
    index = 0
    while index < len(body):
        raw, number = body[index], index + 2
        index += 1
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if raw[:1] in (" ", "\t"):
            raise _fail(where, number, f"unexpected indentation in {raw.strip()!r}")
        match = _KEY_LINE.match(raw)
        if match is None:
            raise _fail(where, number, f"{raw.strip()!r} is not `key: value` (memlens reads a "
                                       f"simple subset of YAML)")
        key, rest = match["key"].strip(), (match["rest"] or "")
        key = _unquote(key, where, number) or key
        if key in data:
            raise _fail(where, number, f"the key {key!r} appears twice")
        if rest in _BLOCK or not rest or rest.startswith("#"):
            end = _indented_block(body, index)
            block = body[index:end]
            if rest in _BLOCK:
                texts = [line.strip() for line in block]
                value: Any = ("\n" if rest.startswith("|") else " ").join(texts).strip()
            else:
                value = _nested(block, where, index + 2)
            index = end
        else:
            value = scalar(rest, where, number)
        data[key] = value
    return data, close + 1


def parse_date(value: Any, where: str, name: str = "date") -> datetime:
    """A UTC time from the ways records write dates: ISO dates and times (`2024-03-05`,
    `2024-03-05T10:00Z`), `2024/03/05`, `March 5, 2024`, `5 Mar 2024`, `Tue, 5 March 2024`;
    anything else (including the ambiguous `03/05/2024`) is an error naming the field."""
    if not isinstance(value, str) or not value.strip():
        raise ExportFormatError(f"{where}: {name} must be a date, got "
                                f"{type(value).__name__} {value!r}")
    text = value.strip()
    iso_text = re.sub(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})", lambda m: "-".join(
        (m[1], m[2].zfill(2), m[3].zfill(2))), text)
    lead = re.match(r"\d{4}-\d{2}-\d{2}(?=\s*(\(|$|,|;))", iso_text)
    for candidate in (iso_text.replace("Z", "+00:00").replace("z", "+00:00"),
                      lead[0] if lead else None):
        if candidate is None:
            continue
        try:
            parsed = datetime.fromisoformat(candidate)
        except ValueError:
            continue
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    tokens = [t.lower() for t in re.findall(r"[A-Za-z]+|\d+", re.sub(
        r"(\d)(st|nd|rd|th)\b", r"\1", text)) if t.lower() not in WEEKDAYS]
    months = [MONTHS[t] for t in tokens if t in MONTHS]
    numbers = [t for t in tokens if t.isdigit()]
    years = [int(t) for t in numbers if len(t) == 4]
    days = [int(t) for t in numbers if len(t) <= 2]
    if len(months) == 1 and len(years) == 1 and len(days) == 1 and len(tokens) == 3:
        try:
            return datetime(years[0], months[0], days[0], tzinfo=UTC)
        except ValueError:
            pass
    raise ExportFormatError(
        f"{where}: {name} {value!r} is not a date this reader understands; write it as "
        f"2024-03-05 (or 2024-03-05T10:00Z, March 5, 2024)")


def status_of(raw: Any, where: str, unknown: str | None) -> str:
    """The memlens status of a record's written status: superseded when a word says so
    ("Accepted, superseded by ADR-004"), else archived, else active. An unknown one takes
    `unknown` (the `unknown_status` param) or is an error naming the words known."""
    if not isinstance(raw, str):
        raise ExportFormatError(f"{where}: status must be text, got "
                                f"{type(raw).__name__} {raw!r:.60}")
    found = {STATUS_WORDS[w] for w in re.findall(r"[a-z]+", raw.lower()) if w in STATUS_WORDS}
    for status in ("superseded", "archived", "active"):
        if status in found:
            return status
    if unknown is not None:
        return unknown
    raise ExportFormatError(
        f"{where}: status {raw!r} is not a decision status memlens knows "
        f"({', '.join(sorted(STATUS_WORDS))}); pass --param unknown_status=active (or "
        f"archived, superseded) to import such records")


def names_of(value: Any, where: str, name: str) -> list[str]:
    """A list of names from a YAML list or a `Yao, Rem and Kani` text."""
    if value is None:
        return []
    if isinstance(value, list):
        parts = [str(v).strip() for v in value if v is not None]
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        parts = re.split(r"\s*(?:,|;|\band\b|&)\s*", str(value))
    else:
        raise ExportFormatError(f"{where}: {name} must be a name or a list of names, got "
                                f"{type(value).__name__} {value!r:.60}")
    return [p.strip("*_` ") for p in parts if p.strip("*_` ").lower() not in NOTHING]


def references_of(value: Any, where: str, name: str) -> list[str]:
    """The reference texts of a supersedes / superseded-by value (one per list item)."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, list):
        return [t for v in value for t in references_of(v, where, name)]
    if isinstance(value, int | float):
        return [str(value)]
    if isinstance(value, str):
        return [] if value.strip().lower() in NOTHING else [value.strip()]
    raise ExportFormatError(f"{where}: {name} must be a reference or a list of them, got "
                            f"{type(value).__name__} {value!r:.60}")
