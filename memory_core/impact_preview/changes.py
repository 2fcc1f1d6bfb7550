"""Which queries' results a batch changes, and why each memory left, came or moved.

A query's results are its top k ids before (the live store) and after (the scratch copy
the batch ran on). A memory that left is `deleted`/`purged` (gone from the copy),
`archived`, `superseded by X` or `merged into X` (its status in the copy and the active
`supersedes` edge that points at it), `changed by the batch` (a field the batch wrote),
or `rank moved` (it is still there and active: other memories now rank above it). A
memory that came is a `new reflection`/`new memory` (created by the batch), `restored`,
`changed by the batch`, or `rank moved`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from memory_core.curation.report import CurationReport
from memory_core.model.records import Memory
from memory_core.store import MemoryStore

#: Fields that follow another one a reason names (the hash follows the content).
BOOKKEEPING = frozenset({"content_hash", "embedding_status"})


@dataclass(frozen=True)
class Moved:
    """One memory of one query's results: its rank before and after (1-based; None when
    outside the top k) and why it moved."""

    memory_id: str
    before: int | None
    after: int | None
    why: str


@dataclass(frozen=True)
class QueryChange:
    """A query whose top k differ after the batch: what it lost, gained and reordered, and
    its score change per shown metric (after - before)."""

    qid: str
    query: str
    lost: tuple[Moved, ...]
    gained: tuple[Moved, ...]
    moved: tuple[Moved, ...]
    deltas: Mapping[str, float]

    def to_dict(self) -> dict[str, object]:
        return {"qid": self.qid, "query": self.query,
                "lost": [asdict(m) for m in self.lost], "gained": [asdict(m) for m in self.gained],
                "moved": [asdict(m) for m in self.moved], "deltas": dict(self.deltas)}


class Reasons:
    """Why a memory left or came, from the batch's report and both stores' rows."""

    def __init__(self, live: MemoryStore, copy: MemoryStore, batch: CurationReport,
                 ids: Sequence[str]) -> None:
        wanted = sorted(set(ids))
        self.batch = batch
        self.before: dict[str, Memory] = live.get_many(wanted)
        self.after: dict[str, Memory] = copy.get_many(wanted)
        self.touched = set(batch.memory_ids)
        gone = [i for i in wanted if i in self.after
                and self.after[i].status == "superseded"]
        self.successor: dict[str, str] = {}
        for edge in copy.changes.edges_touching(gone) if gone else ():
            if edge.relation == "supersedes" and edge.status == "active" \
                    and edge.target_id in gone:
                self.successor.setdefault(edge.target_id, edge.source_id)

    def _fields(self, memory_id: str) -> str:
        names = list(dict.fromkeys(c.field for c in self.batch.changed_fields(memory_id)
                                   if c.field not in BOOKKEEPING))
        return f"changed by the batch ({', '.join(names)})" if names else "changed by the batch"

    def _status_changed(self, memory_id: str) -> bool:
        old, new = self.before.get(memory_id), self.after.get(memory_id)
        return old is not None and new is not None and old.status != new.status

    def lost(self, memory_id: str) -> str:
        """Why a memory is no longer in a query's top k."""
        new = self.after.get(memory_id)
        if new is None:
            return "purged" if self.batch.action == "purge" else \
                f"deleted by the {self.batch.action}"
        if new.status == "archived" and self._status_changed(memory_id):
            return "archived"
        if new.status == "superseded" and self._status_changed(memory_id):
            by = self.successor.get(memory_id)
            verb = "merged into" if self.batch.action == "merge" else "superseded by"
            return f"{verb} {by}" if by else verb.split()[0]
        if memory_id in self.touched:
            return f"rank moved: {self._fields(memory_id)}"
        return "rank moved: others now rank above it"

    def gained(self, memory_id: str) -> str:
        """Why a memory is now in a query's top k."""
        new = self.after.get(memory_id)
        if memory_id in self.batch.created and new is not None:
            if self.batch.action == "undo":
                return "back: the undone batch had deleted it"
            return "new reflection" if new.memory_type == "reflection" else \
                f"new memory (made by the {self.batch.action})"
        if new is not None and self._status_changed(memory_id):
            return "restored" if new.status == "active" else \
                f"now {new.status}, which this query's filter asks for"
        if memory_id in self.touched:
            return f"rank moved: {self._fields(memory_id)}"
        return "rank moved: a place above it was freed"

    def moved(self, memory_id: str) -> str:
        """Why a memory kept its place in the top k at another rank."""
        if memory_id in self.touched:
            return f"rank moved: {self._fields(memory_id)}"
        return "rank moved"


def changed_ids(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """Every id whose rank differs between two top-k lists."""
    a = {m: r for r, m in enumerate(before)}
    b = {m: r for r, m in enumerate(after)}
    return [m for m in dict.fromkeys([*before, *after]) if a.get(m) != b.get(m)]


def query_change(qid: str, query: str, before: Sequence[str], after: Sequence[str],
                 reasons: Reasons, deltas: Mapping[str, float]) -> QueryChange | None:
    """What changed in one query's top k (`before`, `after`: ids best first), or None."""
    if list(before) == list(after):
        return None
    rank_a = {m: r + 1 for r, m in enumerate(before)}
    rank_b = {m: r + 1 for r, m in enumerate(after)}
    lost = tuple(Moved(m, rank_a[m], None, reasons.lost(m)) for m in before if m not in rank_b)
    gained = tuple(Moved(m, None, rank_b[m], reasons.gained(m)) for m in after
                   if m not in rank_a)
    moved = tuple(Moved(m, rank_a[m], rank_b[m], reasons.moved(m)) for m in after
                  if m in rank_a and rank_a[m] != rank_b[m])
    return QueryChange(qid, query, lost, gained, moved, dict(deltas))
