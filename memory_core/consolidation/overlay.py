"""How far consolidation has reached each memory: consolidated, a current candidate's member,
or neither (the Map page colours its points by it, so the clusters still to review stand out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES

if TYPE_CHECKING:
    from memory_core.consolidation import Candidate
    from memory_core.store import MemoryStore

#: The classes, in the order the Map's legend lists them.
CONSOLIDATED, CANDIDATE, NEITHER = "consolidated", "candidate", "neither"
OVERLAY_CLASSES = (CONSOLIDATED, CANDIDATE, NEITHER)
REFLECTION = "reflection"


def consolidated_ids(store: MemoryStore) -> set[str]:
    """The memories consolidation has reached in this tenant: every reflection (any status:
    it is the result, not a source still to review), and every target of a `derived_from`
    edge from an active reflection (the rule that makes a memory no longer a candidate)."""
    reflections = store.ids(Filter(memory_type=REFLECTION, status=STATUSES))
    active = store.ids(Filter(memory_type=REFLECTION))
    sources = {edge.target_id for edge in store.edges.list()
               if edge.relation == "derived_from" and edge.source_id in active}
    return reflections | sources


def classify(ids: Iterable[str], consolidated: set[str], members: set[str]) -> dict[str, str]:
    """Each of `ids` as `consolidated` (in `consolidated`), `candidate` (in `members`) or
    `neither`; consolidated wins, as a reflection's source is no candidate any more.

    >>> classify(["a", "b", "c"], {"a"}, {"a", "b"})
    {'a': 'consolidated', 'b': 'candidate', 'c': 'neither'}
    """
    return {i: CONSOLIDATED if i in consolidated else CANDIDATE if i in members else NEITHER
            for i in ids}


def consolidation_overlay(store: MemoryStore, ids: Sequence[str] | None = None, *,
                          candidates: Sequence[Candidate] | None = None) -> dict[str, str]:
    """memory id -> "consolidated", "candidate" or "neither", for `ids` (None: the tenant's
    active memories).

    "consolidated": a reflection, or a source of an active reflection (`derived_from`);
    "candidate": a member of one of `candidates` (None: the store's current ones,
    `consolidation_candidates(store)`, rejected ones left out as the Curate page leaves them);
    "neither": the rest. Ids this tenant does not hold are "neither".

    Example: `Counter(consolidation_overlay(store).values())`.
    """
    if candidates is None:
        from memory_core.consolidation import consolidation_candidates

        candidates = consolidation_candidates(store)
    members = {m for candidate in candidates for m in candidate.members}
    wanted = sorted(store.ids()) if ids is None else list(dict.fromkeys(ids))
    return classify(wanted, consolidated_ids(store), members)


def overlay_counts(overlay: Mapping[str, str]) -> dict[str, int]:
    """How many memories each class holds, every class listed (zeros too).

    >>> overlay_counts({"a": "candidate", "b": "neither"})
    {'consolidated': 0, 'candidate': 1, 'neither': 1}
    """
    counts = dict.fromkeys(OVERLAY_CLASSES, 0)
    for value in overlay.values():
        counts[value] += 1
    return counts
