"""Showing untrusted text safely: memory content, tenant and project names, query sets and
file names come from agents and users, so every sink escapes them.

* `visible`: characters that make text read differently than it is stored (bidirectional
  overrides and isolates, zero-width and other invisible format characters) shown as
  `<U+202E>`, so `safe<U+202E>txt.exe` cannot pass for `safeexe.txt`.
* `for_terminal`: `visible`, plus every control character a terminal would obey (C0 but
  newline and tab, DEL, C1, and so every ESC/CSI/OSC sequence) shown as `\\x1b`-style text:
  a memory cannot set the clipboard (OSC 52), the window title or clear the screen. A CRLF
  line end is just a newline; lone surrogates (undecodable command-line bytes) are written
  out too, so printing never fails on them.
* `shown`: a value for an error line: `repr`, cut to 80 characters, with its full length.
* `one_line`: the last safety net of an error line: terminal-safe, one line, every run of
  more than 100 non-blank characters cut to 80, and at most 300 characters (the middle cut,
  so the start naming the problem and the end stay).
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
_SURROGATE = re.compile("[\ud800-\udfff]")
SHOWN_CHARS = 80
LINE_CHARS = 300
#: a run of non-blank characters longer than `shown` writes one (with its quotes, brackets)
_LONG_RUN = re.compile(rf"\S{{{SHOWN_CHARS + 21},}}")


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
    text = visible(text.replace("\r\n", "\n"))  # CRLF ends a line like LF does: no overwrite
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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


def _cut_run(match: re.Match[str]) -> str:
    run = match.group()
    return f"{run[:SHOWN_CHARS]}…[{len(run) - SHOWN_CHARS} characters cut]"


def one_line(text: str, limit: int = LINE_CHARS) -> str:
    """`text` as one terminal-safe line of at most `limit` characters: newlines written as
    `\\n`, a run of more than 100 non-blank characters (a value someone did not pass
    through `shown`) cut to 80, and the middle of a line still too long replaced by how
    much was cut.

    >>> one_line("Error: bad value 'xxxxxxxxxxxxxxxxxxxx' for --x", limit=40)
    'Error: bad v…[28 characters cut]…for --x'
    >>> one_line("Error: tenant '" + "x" * 1000 + "' has no memories")[-38:]
    'x…[922 characters cut] has no memories'
    """
    text = _LONG_RUN.sub(_cut_run, for_terminal(text).replace("\n", "\\n"))
    if len(text) <= limit:
        return text
    # the cut has no more digits than the whole length: reserve room for those
    keep = limit - len("…[ characters cut]…") - len(str(len(text)))
    head = keep * 2 // 3
    return f"{text[:head]}…[{len(text) - keep} characters cut]…{text[len(text) - keep + head:]}"
