"""Untrusted text for Streamlit's sinks: escaped Markdown, code spans, badges, table cells.

Tenant, project, agent and tag names, query sets, filter values, file names and memory content
come from agents and users. In Markdown (captions, infos, badges, labels) they are escaped by
`md` or put in a code span by `code`; in tables they go through `cells`. All three write out
invisible characters that change how text reads (`memory_core.visible`: `<U+202E>`).

Escaping alone does not stop links: Streamlit's Markdown (remark-gfm) turns `http://x.y`,
`www.x.y` and `a@x.y` into links by matching the *text* of each text node, after backslash
escapes are resolved. `md` therefore also splits such text into two text nodes with an empty
`:small[]` directive (an empty span, nothing shown, nothing copied) after `http`/`www` and
before `@`, checked in Chromium: no link, and the text reads and copies as typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_core import visible

if TYPE_CHECKING:
    import polars as pl

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")
#: Where GFM would start a link in the escaped text: `http(s)\:`, `www\.`, and `@`.
_LINK_START = re.compile(r"(?i)(https?|www)(?=\\[:.])|(?=@)")
#: An empty directive: it renders an empty <span>, which ends the text node before it.
NODE_BREAK = ":small[]"


def md(text: object) -> str:
    """`text` for inline Markdown: one line, invisible characters written out, every markup
    character backslashed, and text GFM would turn into a link split (see the module doc).

    >>> md("see [x](http://a.b) :red[!]")
    'see \\\\[x\\\\]\\\\(http:small[]\\\\://a\\\\.b\\\\) \\\\:red\\\\[\\\\!\\\\]'
    """
    escaped = _MD_SPECIAL.sub(r"\\\1", visible(" ".join(str(text).split())))
    return _LINK_START.sub(lambda m: (m.group(1) or "") + NODE_BREAK, escaped)


def code(text: object) -> str:
    """`text` as an inline code span (shown literally: no links, images or directives), on
    one line with invisible characters written out; the fence outgrows any backtick run.

    >>> code("a`b")
    '``a`b``'
    """
    value = visible(" ".join(str(text).split()))
    if not value:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


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


def cell(value: Any) -> Any:
    """A table cell: strings with invisible characters written out, lists and tuples of
    strings likewise, anything else as it is."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list | tuple):
        return [cell(v) for v in value]
    return value


def cells(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows for `st.dataframe`, every key and cell through `cell`."""
    return [{visible(str(k)): cell(v) for k, v in row.items()} for row in rows]


def frame_cells(frame: pl.DataFrame) -> pl.DataFrame:
    """A polars frame for `st.dataframe`: column names and every string (and list of
    strings) cell with invisible characters written out."""
    import polars as pl

    def plain(values: pl.Series) -> bool:  # ASCII text has nothing invisible in it
        return values.is_empty() or not bool(values.str.contains(r"[^\x00-\x7f]").any())

    columns = []
    for series in frame.get_columns():
        if series.dtype == pl.String and not plain(series):
            series = series.map_elements(visible, return_dtype=pl.String)
        elif series.dtype == pl.List(pl.String) and not plain(series.explode()):
            series = series.list.eval(pl.element().map_elements(visible,
                                                                return_dtype=pl.String))
        columns.append(series.alias(visible(series.name)))
    return pl.DataFrame(columns) if columns else frame
