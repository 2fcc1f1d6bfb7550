"""Text helpers of the `claude_code` extractors: clipping, plurals, time spans, metadata."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any


def clip(text: str, limit: int) -> str:
    """`text` cut at `limit` characters (at a word end when one is near), marked when cut.

    >>> clip("one two three", 8)
    'one two … [6 more characters]'
    """
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return f"{cut.rstrip()} … [{len(text) - len(cut)} more characters]"


def plural(n: int, word: str) -> str:
    """"1 thread", "2 threads"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def compact(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` without the empty ones (None, "", [], {}, False, 0): metadata stays small."""
    return {k: v for k, v in values.items() if v not in (None, "", [], (), {}, False, 0)}


def span_text(start: datetime, end: datetime) -> str:
    """"2025-11-03 09:14–09:50 UTC (36 min)", with both dates when the span crosses one."""
    if f"{start:%Y-%m-%d %H:%M}" == f"{end:%Y-%m-%d %H:%M}":
        when = f"{start:%Y-%m-%d %H:%M} UTC"
    elif start.date() == end.date():
        when = f"{start:%Y-%m-%d %H:%M}–{end:%H:%M} UTC"
    else:
        when = f"{start:%Y-%m-%d %H:%M} UTC – {end:%Y-%m-%d %H:%M} UTC"
    minutes = int((end - start).total_seconds() // 60)
    if minutes < 1:
        length = "under a minute"
    elif minutes < 120:
        length = f"{minutes} min"
    else:
        length = f"{minutes // 60} h {minutes % 60} min"
    return f"{when} ({length})"
