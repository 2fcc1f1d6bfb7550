"""Consolidation candidates: groups of related memories that no reflection consolidates yet,
each with a rule-based draft; their strength; rejections remembered in the audit log.

The names load on first use: curation imports `strength` and `cohesion` from here, and
every `memlens` command (the MCP server's start too) would otherwise import the grouping's
SciPy and scikit-learn with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# eager (it is light): importing the submodule would otherwise bind its name, the module,
# where the function belongs
from memory_core.consolidation.strength import strength

if TYPE_CHECKING:
    from memory_core.consolidation.candidates import (
        Candidate,
        candidate_id,
        consolidation_candidates,
        get_candidate,
        reject,
    )
    from memory_core.consolidation.grouping import GroupingParams

__all__ = ["Candidate", "GroupingParams", "candidate_id", "consolidation_candidates",
           "get_candidate", "reject", "strength"]

#: Where each name lives.
_HOMES = {"Candidate": "candidates", "candidate_id": "candidates",
          "consolidation_candidates": "candidates", "get_candidate": "candidates",
          "reject": "candidates", "GroupingParams": "grouping"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
