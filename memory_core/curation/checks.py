"""`Check`: one place `verify_deleted` looked, with its status and what it found."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_core.model.untrusted import shown

PASS, FAIL, SKIP, INFO = "pass", "fail", "skip", "info"


@dataclass(frozen=True)
class Check:
    """One place checked: its name, pass/fail/skip/info and what was found."""

    name: str
    status: str
    detail: str


def found(hits: Sequence[str], what: str) -> str:
    """`what: FIRST and N more` (the first hit shortened and escaped)."""
    return f"{what}: {shown(hits[0])}" + (f" and {len(hits) - 1} more" if len(hits) > 1 else "")
