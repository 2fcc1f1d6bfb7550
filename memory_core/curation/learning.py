"""The learning rules of a correction (ADR-005, docs/design/decay.md): pure functions.

* A verdict on what a memory said multiplies its confidence: accepted x1.05, modified x0.95,
  rejected x0.80, capped at 1. A memory with no confidence (null: nobody said) starts from
  `UNKNOWN_CONFIDENCE` = 0.5, the middle of the 0..1 scale: starting a capped scale from 1
  would make `accepted` a no-op and read "unknown" as "certain".
* A correction kind (superseded, deprecated, refined, merged) halves the corrected memory's
  stability S (a null S is first its type and importance default, `default_stability`), so
  it fades twice as fast; `deprecated` also sets its importance to "deprecated" (tier
  anchor 0.5).
* The replacement of a superseded, refined or merged memory is boosted: its confidence as
  by an `accepted` verdict (x1.05, capped at 1, null from 0.5) and its stability raised to
  at least the corrected memory's S before the penalty (it takes over what that one knew).
* Constitutional memories are exempt from learning penalties (ADR-005's constraint):
  `modified`, `rejected` and the stability penalty are waived for them.

Confidence and stability are float32 columns: results are rounded to float32 here (as the
shortest decimal that reads back as it, `canonical.f32`), so a report, the audit and the
`correct` event show what the store keeps: 0.64, not 0.6399999856948853.
"""

from __future__ import annotations

from memory_core.model.canonical import f32
from memory_core.model.records import Memory
from memory_core.model.stability import usable_stability

#: Confidence multiplier of each verdict.
VERDICTS: dict[str, float] = {"accepted": 1.05, "modified": 0.95, "rejected": 0.80}
#: Verdicts that lower confidence: waived for constitutional memories.
PENALTIES = frozenset({"modified", "rejected"})
#: Correction kinds (ADR-005's `correction_type`) and the edge each draws from the
#: replacement to the corrected memory (None: no replacement).
KINDS: dict[str, str | None] = {"superseded": "supersedes", "deprecated": None,
                                "refined": "derived_from", "merged": "supersedes"}
#: Stability multiplier of a corrected memory (ADR-005's "0.5x stability penalty").
STABILITY_PENALTY = 0.5
#: What a null confidence counts as: the middle of the scale, "nobody said".
UNKNOWN_CONFIDENCE = 0.5
#: The replacement's confidence boost: as an accepted verdict.
REPLACEMENT_BOOST = VERDICTS["accepted"]


def float32(value: float) -> float:
    """`value` as the store's float32 column keeps it, written as its shortest decimal.

    >>> float32(0.8 * 0.8)
    0.64
    """
    return f32(value) or 0.0  # None only for None: a float in, a float out


def stability_of(memory: Memory) -> float:
    """The memory's stability S in days: stored, or its type and importance default (also
    for a stored value that is not a positive number of days, `usable_stability`)."""
    return usable_stability(memory.stability, memory.memory_type, memory.importance,
                            memory_id=memory.id)


def adjusted_confidence(confidence: float | None, factor: float) -> float:
    """`min(1, confidence x factor)`, a null confidence counting as `UNKNOWN_CONFIDENCE`.

    >>> adjusted_confidence(None, 0.80)
    0.4
    >>> adjusted_confidence(0.99, 1.05)
    1.0
    """
    start = UNKNOWN_CONFIDENCE if confidence is None else confidence
    return float32(min(1.0, start * factor))


def penalised_stability(memory: Memory) -> float:
    """The corrected memory's S after the penalty: `stability_of(memory) x 0.5`.

    >>> penalised_stability(Memory.new("x", "decision", stability=120.0))
    60.0
    """
    return float32(stability_of(memory) * STABILITY_PENALTY)


def boosted_stability(replacement: Memory, corrected: Memory) -> float | None:
    """The replacement's S raised to at least the corrected memory's S before its penalty;
    None when it already is at least that (nothing to store)."""
    floor = stability_of(corrected)
    if stability_of(replacement) >= floor:
        return None
    return float32(floor)
