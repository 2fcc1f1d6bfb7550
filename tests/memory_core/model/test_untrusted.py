"""Untrusted text is shown as it is stored: no hidden direction changes, no terminal codes."""

from __future__ import annotations

import pytest

from memory_core.model.untrusted import LINE_CHARS, for_terminal, one_line, shown, visible


@pytest.mark.parametrize(("text", "expected"), [
    ("safe\u202etxt.exe", "safe<U+202E>txt.exe"),  # right-to-left override
    ("ad\u200bmin", "ad<U+200B>min"),  # zero-width space
    ("\u2066x\u2069", "<U+2066>x<U+2069>"),  # isolates
    ("\ufeffbom", "<U+FEFF>bom"),
    ("plain text, émigré, 日本語", "plain text, émigré, 日本語"),
])
def test_visible_writes_out_what_would_change_the_reading(text: str, expected: str) -> None:
    assert visible(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"),  # OSC 52: write the clipboard
    ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # window title
    ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen
    ("\x9b31m", "\\x9b31m"),  # C1 CSI
    ("a\rb\x08c\x7f", "a\\x0db\\x08c\\x7f"),  # carriage return, backspace, DEL
    ("line one\n\tline two", "line one\n\tline two"),  # newline and tab stay
    ("dos\r\nline\r\n", "dos\nline\n"),  # CRLF ends a line; it cannot overwrite one
    ("a\r\rb\r", "a\\x0d\\x0db\\x0d"),  # a lone CR could
    ("\x85nel \x1bc", "\\x85nel \\x1bc"),  # NEL (C1), ESC c (full reset)
    ("bad byte \udcff", "bad byte \\udcff"),  # a lone surrogate (undecodable argv byte)
])
def test_for_terminal_escapes_every_control(text: str, expected: str) -> None:
    out = for_terminal(text)
    assert out == expected
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f for c in out)


def test_shown_cuts_long_values_and_says_how_long() -> None:
    assert shown("project-a") == "'project-a'"
    line = shown("x" * 100_000)
    assert len(line) < 120 and line.endswith("… (100000 characters)")
    assert shown("\x1b[2J") == "'\\x1b[2J'"


def test_for_terminal_output_always_prints() -> None:
    # a lone surrogate cannot be encoded: printing it raw would crash the command
    for_terminal("x\udcff\ud800y").encode("utf-8")


def test_one_line_keeps_short_lines_and_makes_them_one() -> None:
    assert one_line("Error: unknown status 'x'") == "Error: unknown status 'x'"
    assert one_line("first\nsecond\x1b[2J") == "first\\nsecond\\x1b[2J"


def test_one_line_cuts_long_runs_so_the_problem_stays_named() -> None:
    # what a message that echoes a whole value looks like, e.g. a 100 kB --tenant
    text = "Error: tenant '" + "x" * 100_000 + "' has no memories in /s; or add --tenant " \
        + "x" * 100_000 + " to create it"
    line = one_line(text)
    assert len(line) <= LINE_CHARS
    assert line.startswith("Error: tenant '" + "x" * 79 + "…[99922 characters cut] has no")
    assert line.endswith(" to create it")


def test_one_line_cuts_the_middle_and_says_how_much() -> None:
    text = "Error: " + "too many words " * 10_000 + "is the problem"
    line = one_line(text)
    assert len(line) <= LINE_CHARS == 300
    assert line.startswith("Error: too many words too many words")
    assert line.endswith("too many words is the problem")
    marker = line[line.index("…["):line.index("]…") + 2]
    assert marker == f"…[{len(text) - (len(line) - len(marker))} characters cut]…"


@pytest.mark.parametrize("size", [301, 310, 1_000, 10_000, 100_000, 1_000_000])
def test_one_line_is_never_longer_than_the_limit(size: int) -> None:
    assert LINE_CHARS - 2 <= len(one_line(("word " * size)[:size])) <= LINE_CHARS
    assert len(one_line("e" * size)) <= LINE_CHARS
