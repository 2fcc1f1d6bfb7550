"""A griffe extension for the API reference: fence the doctest examples of docstrings.

memlens' docstrings are prose with `>>>` examples (they run as tests). Left as they are,
Markdown reads an example such as `frame[0][-1]` as a reference link, which mkdocs' strict
build reports; fenced as `pycon` they render as the console sessions they are.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """`text` with each run of `>>>` lines and their output (up to a blank line) inside a
    `pycon` code fence; text already inside a fence is left alone."""
    out: list[str] = []
    inside = False
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not fenced and not inside and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not stripped:
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence every docstring's doctest examples when griffe loads it."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
