"""What Streamlit would render as active markup in an AppTest's elements: links, images,
colour directives, raw HTML, and (in figures) plotly's HTML; and invisible characters.

AppTest gives the Markdown source of each element, not its rendering, so `hazards` parses
the source as Streamlit's front end does where it matters: CommonMark links and images
(markdown-it), GFM's literal autolinks (`http://x.y`, `www.x.y`, `a@x.y`), which remark-gfm
finds by matching the *text* of each text node after escapes are resolved (checked in
Chromium), and directives (`:red[...]`) that memlens did not write.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from memlens_app.widgets.common.markup import NODE_BREAK

#: CommonMark with backslash escapes kept as their own tokens (`text_special`).
_PARSER = MarkdownIt("commonmark").disable("text_join")
#: remark-gfm's literal autolinks (mdast-util-gfm-autolink-literal), domain with a dot.
_AUTOLINK = re.compile(r"(?i)(https?://|www\.)[-\w]+\.[-\w]|[-.\w+]+@[-\w]+(\.[-\w]+)+")
#: A text directive, `:name[`, in text whose escaped characters are masked.
_DIRECTIVE = re.compile(r":([a-zA-Z][\w-]*)\[")
#: Characters that make text read differently than it is stored.
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_BREAK = "\ufffd"  # markdown-it turns the NUL put in place of NODE_BREAK into this
_MASK = "\x01"


def _text_hazards(text: str, masked: str) -> list[str]:
    """Hazards in one text node: `text` as rendered, `masked` with escaped characters
    replaced (an escaped `:` or `[` starts no directive)."""
    found = [f"directive {m.group()}" for m in _DIRECTIVE.finditer(masked)
             if not m.group(1).endswith("-badge")]
    for piece in text.split(_BREAK):
        found += [f"autolink {m.group()}" for m in _AUTOLINK.finditer(piece)]
    return found


def hazards(source: str) -> list[str]:
    """The active markup `source` would render as: links, images, autolinks, raw HTML,
    directives other than memlens' badges and node breaks, invisible characters."""
    found = [f"invisible {c!r}" for c in INVISIBLE.findall(source)]
    for block in _PARSER.parse(source.replace(NODE_BREAK, "\x00")):
        text: list[str] = []  # one mdast text node: adjacent text and escape tokens
        masked: list[str] = []
        for token in [*(block.children or []), None]:
            if token is not None and token.type in ("text", "text_special"):
                text.append(token.content)
                escaped = token.type == "text_special" and token.info == "escape"
                masked.append(_MASK if escaped else token.content)
                continue
            found += _text_hazards("".join(text), "".join(masked))
            text, masked = [], []
            if token is not None and token.type in ("link_open", "image", "html_inline"):
                found.append(f"{token.type} {token.attrs or token.content}")
    return found


def markdown_sources(at: AppTest) -> Iterator[tuple[str, str]]:
    """(where, Markdown source) of every element and label that renders Markdown."""
    for name in ("markdown", "caption", "info", "warning", "error", "success", "title",
                 "header", "subheader"):
        for element in getattr(at, name):
            yield name, element.value
    for metric in at.metric:
        yield "metric label", metric.label
    for name in ("expander", "selectbox", "multiselect", "radio", "text_input", "button",
                 "toggle", "number_input", "tabs"):
        for element in getattr(at, name):
            yield f"{name} label", element.label


def plain_values(at: AppTest) -> Iterator[tuple[str, str]]:
    """(where, text) of what is shown as plain text: st.text, options, table cells."""
    for element in at.text:
        yield "text", element.value
    for name in ("selectbox", "multiselect", "radio"):
        for element in getattr(at, name):
            for option in element.options:
                yield f"{name} option", str(option)
    for frame in at.dataframe:
        value: Any = frame.value
        yield "dataframe columns", " ".join(map(str, value.columns))
        for row in value.itertuples(index=False):
            yield "dataframe cell", " ".join(map(str, row))


def figure_specs(at: AppTest) -> Iterator[str]:
    """The plotly JSON of every chart, its strings decoded."""
    for chart in at.get("plotly_chart"):
        yield json.dumps(json.loads(chart.proto.spec), ensure_ascii=False)


def check_page(at: AppTest, *needles: str) -> None:
    """No element of `at` renders hostile markup, shows an invisible character, or puts
    HTML into a figure; each of `needles` (escaped) is somewhere on the page."""
    assert not at.exception, at.exception
    problems = [(where, source, hazard) for where, source in markdown_sources(at)
                for hazard in hazards(source)]
    problems += [(where, text, "invisible") for where, text in plain_values(at)
                 if INVISIBLE.search(text)]
    for spec in figure_specs(at):
        problems += [("figure", tag, "html") for tag in re.findall(r"<[a-zA-Z/][^>]*>", spec)
                     if not tag.startswith(("<extra", "</extra", "<br"))]
    assert problems == []
    shown = "\n".join([*(s for _, s in markdown_sources(at)), *(t for _, t in plain_values(at)),
                       *figure_specs(at)])
    for needle in needles:
        assert needle in shown, needle


def plain(markdown: str) -> str:
    """Markdown written by `md` read back as text (escapes and node breaks removed)."""
    return re.sub(r"\\(.)", r"\1", markdown.replace(NODE_BREAK, ""))
