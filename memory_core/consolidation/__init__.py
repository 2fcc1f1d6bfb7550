"""Consolidation candidates: groups of related memories that no reflection consolidates yet."""

from __future__ import annotations

from memory_core.consolidation.strength import strength

__all__ = ["strength"]
