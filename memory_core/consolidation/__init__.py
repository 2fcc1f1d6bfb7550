"""Consolidation candidates: groups of related memories that no reflection consolidates yet,
each with a rule-based draft; their strength; rejections remembered in the audit log."""

from __future__ import annotations

from memory_core.consolidation.candidates import (
    Candidate,
    candidate_id,
    consolidation_candidates,
    get_candidate,
    reject,
)
from memory_core.consolidation.grouping import GroupingParams
from memory_core.consolidation.strength import strength

__all__ = ["Candidate", "GroupingParams", "candidate_id", "consolidation_candidates",
           "get_candidate", "reject", "strength"]
