"""`evidence_changes`: reflections whose sources changed since they were written, each with
what changed and its strength then and now, so a reflection stays honest about its evidence.

A reflection's sources are the `sources` its metadata recorded (`consolidate` writes them with
their content hashes); a reflection without them (an import) has its active `derived_from`
targets, and the ones a delete or purge took with the edge (the audit keeps that batch's edge
records: ids and relation, no content). A source has changed when it is

* **purged**: gone, and a purge's audit row names it (its tombstone); **deleted**: gone
  without a purge (an undo can bring it back, which ends the flag);
* **superseded** or **archived**: its status says so (sources the reflection's own batch
  archived, `consolidate(..., archive_sources=True)`, are expected to be archived);
* **corrected**: its content is not the one recorded (an edit), or a correction judged it
  after the reflection was written (`curation.correct` with any kind or a verdict other than
  accepted; a correction leaves the status alone, so the audit is where it shows). Undone
  batches do not count.

The strength now is `strength(n, cohesion)` over the sources that still stand (the unchanged
ones: a corrected source said something else, or was judged wrong); 0 when none stands.
It is computed when asked, from the store as it is, and never written back: a stored copy
would go stale at every later change and undo, while this follows them by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory_core.consolidation.cohesion import cohesion
from memory_core.consolidation.strength import strength
from memory_core.model.filters import Filter
from memory_core.model.records import AuditEntry, Memory
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from memory_core.store.audit import undone_by

#: The kinds of change, strongest first: a source has one, the first that applies.
KINDS = ("purged", "deleted", "superseded", "archived", "corrected")
DERIVED_FROM = "derived_from"


@dataclass(frozen=True)
class EvidenceChange:
    """A reflection whose evidence changed: (source id, kind) of each changed source, the
    strength its metadata recorded (None: none) and the strength of what still stands."""

    reflection_id: str
    changes: tuple[tuple[str, str], ...]
    strength_then: float | None
    strength_now: float

    @property
    def drop(self) -> float:
        """How much strength the reflection lost (0 when it recorded none)."""
        return 0.0 if self.strength_then is None else self.strength_then - self.strength_now

    def to_dict(self) -> dict[str, Any]:
        return {"reflection_id": self.reflection_id,
                "changes": [list(c) for c in self.changes],
                "strength_then": self.strength_then, "strength_now": self.strength_now}


@dataclass(frozen=True)
class _Reflection:
    """What a check reads of a reflection (a scan of three columns, not whole records)."""

    id: str
    created_at: datetime
    metadata: dict[str, Any]


def _reflections(store: MemoryStore, flt: Filter) -> list[_Reflection]:
    import json

    from memory_core.model.values import as_utc

    table = store.scan(["id", "created_at", "metadata"], flt)
    out = []
    for memory_id, created, raw in zip(table["id"].to_pylist(), table["created_at"].to_pylist(),
                                       table["metadata"].to_pylist(), strict=True):
        metadata = json.loads(raw) if raw else {}
        out.append(_Reflection(memory_id, as_utc(created) or created,
                               metadata if isinstance(metadata, dict) else {}))
    return sorted(out, key=lambda r: r.id)


@dataclass(frozen=True)
class _Source:
    id: str
    content_hash: str | None


def _recorded(reflection: _Reflection) -> list[_Source] | None:
    """The sources the reflection's metadata lists, or None when it lists none usable."""
    raw = reflection.metadata.get("sources")
    if not isinstance(raw, list):
        return None
    out = [_Source(str(s["id"]), s.get("content_hash") if isinstance(s.get("content_hash"), str)
                   else None)
           for s in raw if isinstance(s, dict) and isinstance(s.get("id"), str)]
    return out or None


def _records(row: AuditEntry, side: str) -> list[dict[str, Any]]:
    value = getattr(row, side)
    records = value.get("records") if isinstance(value, dict) else None
    return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


class _History:
    """What the audit says about the sources: purges, removed edges, edits and corrections
    (batches undone since left out)."""

    def __init__(self, store: MemoryStore) -> None:
        undone = undone_by(store.audit.query(action="undo", limit=None))
        rows = [r for action in ("purge", "delete", "edit", "correct")
                for r in store.audit.query(action=action, limit=None)
                if r.batch_id is None or r.batch_id not in undone]
        self.purged: set[str] = set()
        self.removed_edges: dict[str, set[str]] = {}  # reflection -> derived_from targets
        self.touched: dict[str, list[datetime]] = {}  # source -> when edited or corrected
        for row in rows:
            kind = row.before.get("kind") if isinstance(row.before, dict) else None
            if row.action == "purge" and kind == "memory":
                self.purged.update(row.target_ids)
            elif row.action in ("purge", "delete") and kind == "edge":
                for doc in _records(row, "before"):
                    if doc.get("relation") == DERIVED_FROM:
                        self.removed_edges.setdefault(str(doc.get("source_id")), set()).add(
                            str(doc.get("target_id")))
            elif row.action == "edit" and kind == "memory":
                self._edits(row)
            elif row.action == "correct" and kind == "correction" and _judged(row.after):
                replacement = row.after.get("replacement")
                for target in row.target_ids:
                    if target != replacement:
                        self.touched.setdefault(target, []).append(row.at)

    def _edits(self, row: AuditEntry) -> None:
        then = {d.get("id"): d.get("content_hash") for d in _records(row, "before")}
        for doc in _records(row, "after"):
            if doc.get("id") in then and then[doc.get("id")] != doc.get("content_hash"):
                self.touched.setdefault(str(doc["id"]), []).append(row.at)

    def changed_since(self, memory_id: str, since: datetime) -> bool:
        return any(at > since for at in self.touched.get(memory_id, ()))


def _judged(after: Any) -> bool:
    """Whether a correction says the memory was wrong or stale (an `accepted` verdict alone
    confirms it)."""
    return isinstance(after, dict) and (after.get("correction_kind") is not None
                                        or after.get("verdict") not in (None, "accepted"))


def _kind(source: _Source, memory: Memory | None, reflection: _Reflection,
          history: _History) -> str | None:
    if memory is None:
        return "purged" if source.id in history.purged else "deleted"
    if memory.status == "superseded":
        return "superseded"
    if memory.status == "archived" and not reflection.metadata.get("sources_archived"):
        return "archived"
    if source.content_hash is not None and memory.content_hash != source.content_hash:
        return "corrected"
    if history.changed_since(memory.id, reflection.created_at):
        return "corrected"
    return None


def _then(reflection: _Reflection) -> float | None:
    value = reflection.metadata.get("strength")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _now(standing: list[Memory], reflection: _Reflection) -> float:
    if not standing:
        return 0.0
    found = cohesion([m.vector for m in standing if m.vector is not None])
    if found is None:  # every standing source is pending: the cohesion it was written with
        recorded = reflection.metadata.get("cohesion")
        found = float(recorded) if isinstance(recorded, (int, float)) else 0.0
    return strength(len(standing), found)


def evidence_changes(store: MemoryStore, ids: Sequence[str] | None = None
                     ) -> list[EvidenceChange]:
    """The reflections (active ones of the tenant, or those of `ids` of any status) whose
    sources changed, biggest strength drop first (then by id): the Curate page's "evidence
    changed" queue and the graph-health finding.

    >>> evidence_changes(store)  # doctest: +SKIP
    [EvidenceChange('r1', (('o2', 'archived'),), strength_then=0.48, strength_now=0.33)]
    """
    flt = (Filter(memory_type="reflection") if ids is None else
           Filter(memory_type="reflection", ids=list(ids), status=STATUSES))
    if ids is not None and not ids:
        return []
    reflections = _reflections(store, flt)
    if not reflections:
        return []
    history = _History(store)
    by_edge: dict[str, list[str]] = {}
    for edge in store.changes.edges_touching([r.id for r in reflections]):
        if edge.relation == DERIVED_FROM and edge.status == "active":
            by_edge.setdefault(edge.source_id, []).append(edge.target_id)
    sources: dict[str, list[_Source]] = {}
    for reflection in reflections:
        found = _recorded(reflection)
        if found is None:
            targets = sorted(set(by_edge.get(reflection.id, ()))
                             | history.removed_edges.get(reflection.id, set()))
            found = [_Source(t, None) for t in targets if t != reflection.id]
        sources[reflection.id] = found
    held = store.get_many(sorted({s.id for found in sources.values() for s in found}),
                          with_vectors=True)
    out = []
    for reflection in reflections:
        changes, standing = [], []
        for source in sources[reflection.id]:
            memory = held.get(source.id)
            kind = _kind(source, memory, reflection, history)
            if kind is None:
                standing.append(held[source.id])
            else:
                changes.append((source.id, kind))
        if changes:
            out.append(EvidenceChange(reflection.id, tuple(changes), _then(reflection),
                                      _now(standing, reflection)))
    out.sort(key=lambda c: (-c.drop, c.reflection_id))
    return out
