"""`derived_closure`: every memory derived from some given memories, each with the path that
makes it derived: what a purge that follows lineage also removes.

`X derived_from Y` (HADES's `consolidates`: a reflection, summary or insight pointing at its
sources) makes X derived from Y, and whatever is derived from X is derived from Y too. The
closure is a breadth-first walk against the edges' direction, from the given ids level by level
(one read of the tenant's edges per level): each memory is reached once, by a shortest path,
so a diamond lists its far end once and a cycle ends the walk. Ties are broken by order: the
given ids in their order, then each memory's derived ones by id, so the same store always
gives the same paths. Edges of every status count: a derivation stays a derivation when its
edge is no longer active (what a purge erases must include it). Only this tenant's edges and
memories are read (`store.changes.edges_touching`, `store.get_many`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_core.model.errors import CurationError
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore

#: The relation a derivation follows (its aliases `consolidates`, `derives_from` are mapped
#: to it when an edge is written: `memory_core.model.schema.RELATION_ALIASES`).
DERIVED_FROM = "derived_from"


@dataclass(frozen=True)
class Derived:
    """A memory derived from a given one: `path` runs from a given id to `id` (`path[-1]`),
    each step `path[i + 1] derived_from path[i]`."""

    id: str
    path: tuple[str, ...]

    @property
    def depth(self) -> int:
        """How many `derived_from` steps away from a given memory it is (1: directly)."""
        return len(self.path) - 1

    @property
    def root(self) -> str:
        """The given memory it is derived from (along `path`)."""
        return self.path[0]


def derived_closure(store: MemoryStore, ids: Sequence[str]) -> list[Derived]:
    """The memories of the store's tenant derived from `ids` (directly or through others),
    nearest first, each with a shortest path from one of `ids`; `ids` themselves are never
    listed (a cycle back to one of them is not a derivation to remove twice), and ids the
    tenant does not hold have nothing derived from them.

    >>> # a reflection R derived_from observations A and B, an insight I derived_from R
    >>> # derived_closure(store, ["A"]) -> [Derived("R", ("A", "R")),
    >>> #                                   Derived("I", ("A", "R", "I"))]
    """
    given = [ids] if isinstance(ids, str) else list(dict.fromkeys(ids))
    paths: dict[str, tuple[str, ...]] = {i: (i,) for i in given}
    frontier = given
    out: list[Derived] = []
    while frontier:
        edges = store.changes.edges_touching(frontier)
        at = set(frontier)
        children: dict[str, set[str]] = {}
        for edge in edges:
            if edge.relation == DERIVED_FROM and edge.target_id in at:
                children.setdefault(edge.target_id, set()).add(edge.source_id)
        reached: dict[str, tuple[str, ...]] = {}
        for parent in frontier:  # the order that makes the paths deterministic
            for child in sorted(children.get(parent, ())):
                if child not in paths and child not in reached:
                    reached[child] = (*paths[parent], child)
        # an edge whose other end is not a memory of the tenant (written around the store's
        # endpoint check) leads nowhere
        held = store.get_many(list(reached)) if reached else {}
        frontier = [i for i in reached if i in held]
        for child in frontier:
            paths[child] = reached[child]
            out.append(Derived(child, reached[child]))
    return out


def with_derived_ids(store: MemoryStore, ids: Sequence[str],
                     chosen: Sequence[str] | bool) -> list[str]:
    """The derived memories a delete takes along: none (False), the whole closure of `ids`
    (True), or the ticked ones `chosen`, each of which must be in the closure (anything else
    is refused: a delete takes only what it was shown)."""
    if chosen is False:
        return []
    closure = [d.id for d in derived_closure(store, ids)]
    if chosen is True:
        return closure
    picked = [chosen] if isinstance(chosen, str) else list(dict.fromkeys(chosen))
    inside = set(closure) | set(ids)  # a selected id ticked again is deleted anyway
    outside = [i for i in picked if i not in inside]
    if outside:
        more = f" (and {len(outside) - 1} more)" if len(outside) > 1 else ""
        raise CurationError(f"memory {shown(outside[0])}{more} is not derived from the "
                            f"selection; nothing was changed: pick derived memories from "
                            f"the preview's list, or select it for the delete itself")
    wanted = set(picked)
    return [i for i in closure if i in wanted]
