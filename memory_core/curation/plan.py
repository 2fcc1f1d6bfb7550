"""A curation plan: the memories and edges an action touches, as they are and as they will be.

Actions build a `Plan` from the store's current rows; `batch.run` previews it (a report, no
write) or applies it (a change set and its audit rows under one batch id). Selections are
resolved here: ids (any status, this tenant only) or a `Filter`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from memory_core.curation.report import CurationReport, EdgeChange, FieldChange
from memory_core.model.canonical import f32
from memory_core.model.errors import CurationError, MemoryNotFoundError
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore
from memory_core.store.changes import ChangeSet

#: What an action is pointed at: memory ids, or a filter over the tenant.
Selection = Sequence[str] | Filter

#: Fields a report does not list as changes (bookkeeping, or too long to read).
_UNLISTED = frozenset({"vector", "updated_at"})


def stamp(memory: Memory) -> str:
    """What must not change between a preview and its confirmation."""
    return (f"{memory.status}|{memory.updated_at.isoformat()}|{memory.content_hash}|"
            f"{memory.access_count}")


def select(store: MemoryStore, selection: Selection, *, what: str) -> dict[str, Memory]:
    """The memories (with vectors) a selection names, in its order; unknown or other
    tenants' ids and an empty selection are one clear `CurationError`."""
    if isinstance(selection, Filter):
        ids = sorted(store.ids(selection))
        if not ids:
            raise CurationError(f"no memory matches the filter; nothing to {what}")
    else:
        if isinstance(selection, str):
            selection = [selection]
        ids = list(dict.fromkeys(selection))
        if not ids:
            raise CurationError(f"no memory was selected; nothing to {what}")
    found = store.get_many(ids, with_vectors=True)
    missing = [i for i in ids if i not in found]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise MemoryNotFoundError(
            f"no memory with id {shown(missing[0])}{more} in tenant {shown(store.tenant)}; "
            f"nothing was changed (list ids with `memlens ls`)"
        )
    return {i: found[i] for i in ids}


def edge_line(edge: Edge) -> str:
    """`source -relation-> target` for reports."""
    return f"{edge.source_id} -{edge.relation}-> {edge.target_id}"


@dataclass
class Plan:
    """Memories and edges before and after one action (absent after: deleted)."""

    action: str
    selected: list[str]
    before: dict[str, Memory] = field(default_factory=dict)
    after: dict[str, Memory] = field(default_factory=dict)
    edges_before: dict[str, Edge] = field(default_factory=dict)
    edges_after: dict[str, Edge] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    purge: bool = False

    def keep(self, memory: Memory) -> None:
        """Record a memory the action reads and leaves as it is (deleted unless updated)."""
        self.before[memory.id] = memory
        self.after[memory.id] = memory

    def keep_edge(self, edge: Edge) -> None:
        self.edges_before[edge.id] = edge
        self.edges_after[edge.id] = edge

    @property
    def created(self) -> list[str]:
        return [i for i in self.after if i not in self.before]

    @property
    def deleted(self) -> list[str]:
        return [i for i in self.before if i not in self.after]

    @property
    def touched(self) -> list[str]:
        """Memory ids written, created or deleted."""
        return [i for i in {**self.before, **self.after}
                if self.before.get(i) != self.after.get(i)]

    @property
    def touched_edges(self) -> list[str]:
        return [i for i in {**self.edges_before, **self.edges_after}
                if self.edges_before.get(i) != self.edges_after.get(i)]

    def changeset(self) -> ChangeSet:
        return ChangeSet(
            memories=tuple(m for i, m in self.after.items() if self.before.get(i) != m),
            deleted_memories=tuple(self.deleted),
            edges=tuple(e for i, e in self.edges_after.items() if self.edges_before.get(i) != e),
            deleted_edges=tuple(i for i in self.edges_before if i not in self.edges_after),
        )

    def field_changes(self) -> list[FieldChange]:
        out = []
        for memory_id in self.touched:
            old, new = self.before.get(memory_id), self.after.get(memory_id)
            if old is None or new is None:
                continue  # created or deleted: listed as such
            for f in fields(Memory):
                if f.name in _UNLISTED:
                    continue
                a, b = getattr(old, f.name), getattr(new, f.name)
                if a != b:
                    out.append(FieldChange(memory_id, f.name, _plain(a), _plain(b)))
        return out

    def edge_changes(self) -> list[EdgeChange]:
        out = []
        for edge_id in self.touched_edges:
            old, new = self.edges_before.get(edge_id), self.edges_after.get(edge_id)
            if old is None and new is not None:
                out.append(EdgeChange(edge_id, "added", None, edge_line(new)))
            elif new is None and old is not None:
                out.append(EdgeChange(edge_id, "removed", edge_line(old), None))
            elif old is not None and new is not None:
                out.append(EdgeChange(edge_id, "moved", edge_line(old), edge_line(new)))
        return out

    def report(self, *, dry_run: bool, batch_id: str | None = None,
               versions: dict[str, int] | None = None) -> CurationReport:
        return CurationReport(
            action=self.action, dry_run=dry_run, memory_ids=tuple(self.touched),
            changes=tuple(self.field_changes()), created=tuple(self.created),
            deleted=tuple(self.deleted), edges=tuple(self.edge_changes()), batch_id=batch_id,
            purged=self.purge and not dry_run, notes=tuple(self.notes),
            versions=dict(versions or {}),
            basis={i: stamp(m) for i, m in self.before.items()},
        )


def _plain(value: Any) -> Any:
    """A JSON-ready form of a field value (tuples as lists, times as ISO text, the float32
    columns as the shortest decimal that reads back as the stored value: 0.8, not
    0.800000011920929)."""
    if isinstance(value, float):
        return f32(value)
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "items"):
        return dict(value)
    return value
