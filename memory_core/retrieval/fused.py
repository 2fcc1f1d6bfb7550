"""`Fused`: one document's fusion (ranks, contributions, bonus, score), shared by every fusion
method (`fusion.py`, `score_fusion.py`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fused:
    """One document's fusion: its per-engine ranks and contributions, bonus and score."""

    doc_id: str
    ranks: dict[str, int]
    contributions: dict[str, float]
    fused_sum: float  # sum of the engines' contributions, before the bonus
    bonus: float
    score: float  # fused_sum * bonus
