"""Showing untrusted text safely: memory content, tenant and project names, query sets and
file names come from agents and users, so every sink escapes them.

* `visible`: characters that make text read differently than it is stored (bidirectional
  overrides and isolates, zero-width and other invisible format characters) shown as
  `<U+202E>`, so `safe<U+202E>txt.exe` cannot pass for `safeexe.txt`.
* `for_terminal`: `visible`, plus every control character a terminal would obey (C0 but
  newline and tab, DEL, C1, and so every ESC/CSI/OSC sequence) shown as `\\x1b`-style text:
  a memory cannot set the clipboard (OSC 52), the window title or clear the screen.
* `shown`: a value for an error line: `repr`, cut to 80 characters, with its full length.
* `for_html`: `visible`, plus `&`, `<`, `>` and `%` as character references, for text that
  plotly draws (axis and legend labels, titles, hover text): plotly renders a subset of HTML
  there, links included (`<a href=...>`), and `%{...}` in a hover template is a variable.
"""

from __future__ import annotations

import re
import unicodedata

#: Invisible characters that change how text reads: bidi embeddings, overrides, isolates and
#: marks; zero-width spaces and joiners; word joiner and friends; the BOM; soft hyphen.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]"
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SHOWN_CHARS = 80


def _codepoint(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


def visible(text: str) -> str:
    """`text` with its invisible, meaning-changing characters written out.

    >>> visible("safe\\u202etxt.exe")
    'safe<U+202E>txt.exe'
    """
    out = _INVISIBLE.sub(_codepoint, text)
    if out.isascii():
        return out
    # any other format character (Unicode category Cf) is invisible too
    return "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) == "Cf" else c for c in out)


_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "%": "&#37;"}
_HTML_SPECIAL = re.compile("[&<>%]")


def for_html(text: object) -> str:
    """`text` for plotly's labels and hover text: shown as written, never as markup.

    >>> for_html('<a href="http://x">50%</a>')
    '&lt;a href="http://x"&gt;50&#37;&lt;/a&gt;'
    """
    return _HTML_SPECIAL.sub(lambda m: _HTML[m.group()], visible(str(text)))


def for_terminal(text: str) -> str:
    """`text` safe to print on a terminal: controls escaped, invisible characters shown.

    >>> for_terminal("ok\\x1b]52;c;ZXZpbA==\\x07 done\\n")
    'ok\\\\x1b]52;c;ZXZpbA==\\\\x07 done\\n'
    """
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", visible(text))


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """A value as an error line names it: its `repr`, terminal-safe, cut to `limit`
    characters with the full length said.

    >>> shown("x" * 100_000, limit=6)
    "'xxxxx… (100000 characters)"
    """
    text = for_terminal(repr(value))
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}… ({size} characters)"
