"""Inline text for Markdown sinks: escaping, badges, and coarse ages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def md(text: object) -> str:
    """`text` escaped for inline Markdown: every markup character backslashed, one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def age(when: datetime, now: datetime) -> str:
    """How long ago `when` was, coarsely: "5 min ago", "3 h ago", "12 d ago", "2 y ago"."""
    seconds = max(0.0, (now - when).total_seconds())
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def badges(pairs: Sequence[tuple[str, object]]) -> str:
    """Streamlit badges (`:color-badge[label]`) with escaped labels; empty labels skipped."""
    return " ".join(f":{color}-badge[{md(label)}]" for color, label in pairs if label)
