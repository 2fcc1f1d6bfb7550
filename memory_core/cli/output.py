"""What a `memlens` command prints: human-readable lines, JSON, tables, progress bars, the
engine's warnings, and user mistakes as one error line.

Every line of human-readable output goes through `echo`, which escapes control characters
(memories are untrusted text); `emit_json` prints JSON, whose escaping is JSON's own.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import click

from memory_core.model.errors import MemlensError
from memory_core.model.records import Memory
from memory_core.model.untrusted import for_terminal, one_line
from memory_core.store.disk_full import full_disk_anywhere
from memory_core.store.files.damage import store_damage
from memory_core.store.object_storage import object_storage_error


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn user mistakes (click errors, every `MemlensError`, the operating system refusing
    a path) into one stderr line, exit 1.

    The line is terminal-safe and at most `LINE_CHARS` long (`one_line`): messages name
    values with `shown`, and this is the net for those that do not (click's own, say).
    """
    try:
        yield
    except click.exceptions.Abort:
        echo("aborted", err=True)
        sys.exit(1)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see `{exc.ctx.command_path} --help`)"
        echo(one_line(f"Error: {exc.format_message()}{hint}"), err=True)
        sys.exit(1)
    except (MemlensError, OSError) as exc:  # OSError: a path that is missing, too long, ...
        mapped = (None if isinstance(exc, MemlensError) else full_disk_anywhere(exc)
                  or object_storage_error(exc) or store_damage(exc))
        echo(one_line(f"Error: {mapped or exc}"), err=True)
        sys.exit(1)
    except (RuntimeError, ValueError) as exc:  # LanceDB's: object storage, a damaged file
        mapped = full_disk_anywhere(exc) or object_storage_error(exc) or store_damage(exc)
        if mapped is None:
            raise
        echo(one_line(f"Error: {mapped}"), err=True)
        sys.exit(1)


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """Print human-readable output, the one way `memlens` does (a test holds every command
    to it): control characters but newline and tab are escaped and invisible ones written
    out (`for_terminal`), so a memory cannot set the clipboard (OSC 52), retitle the window
    or clear the screen of whoever reads it."""
    click.echo(for_terminal(str(message)), err=err, nl=nl)


class _TerminalLog(logging.Handler):
    """Warnings of `memory_core` on stderr as Python's last-resort handler shows them, but
    through `echo`: they can quote file contents and error messages."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            echo(self.format(record), err=True)
        except Exception:  # logging's own contract: report, never raise from a handler
            self.handleError(record)


@contextmanager
def warnings_to_terminal() -> Iterator[None]:
    """`memory_core`'s warnings printed through `echo` while a command runs (then the
    handler goes: a program that calls `main` keeps its own logging setup)."""
    logger = logging.getLogger("memory_core")
    handler = _TerminalLog(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


@contextmanager
def progress_bar(label: str, total: int | None = None, unit: str = "text"
                 ) -> Iterator[Callable[[int], None]]:
    """A tqdm bar on stderr (hidden when stderr is not a terminal); yields `advance(n)`."""
    from tqdm import tqdm

    with tqdm(total=total, desc=for_terminal(label), unit=unit, disable=None,
              leave=False) as bar:
        yield bar.update


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)


def emit_json(value: Any) -> None:
    """Print `value` as indented JSON on stdout (JSON escapes C0 controls itself; the
    output is for programs and stays exactly as `json.dumps` writes it)."""
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=_default))


def print_table(rows: list[list[str]], right: set[int], indent: str = "") -> None:
    """Print `rows` as aligned columns (those in `right` right-aligned), the first a header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        line = "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        echo(f"{indent}{line.rstrip()}")


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` characters, the last one an ellipsis when cut.

    >>> shorten("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= width else text[: width - 1] + "…"


def memory_line(memory: Memory, width: int = 90) -> str:
    """One line describing a memory for listings."""
    first = memory.content.strip().splitlines()[0] if memory.content.strip() else ""
    where = "/".join(x for x in (memory.project, memory.agent) if x)
    return (f"{memory.id}  {memory.created_at:%Y-%m-%d}  {memory.memory_type:<16} "
            f"{where:<20} {shorten(first, width)}")

