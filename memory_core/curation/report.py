"""What a curation action changed (or, in a preview, would change), field by field."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class FieldChange:
    """One field of one memory, before and after (None on either side: absent)."""

    memory_id: str
    field: str
    before: Any
    after: Any


@dataclass(frozen=True)
class EdgeChange:
    """An edge added, removed or re-pointed (`before`/`after`: "source -relation-> target")."""

    edge_id: str
    change: str  # added, removed, moved
    before: str | None
    after: str | None


@dataclass(frozen=True)
class CurationReport:
    """The outcome of one curation action, or of its preview (`dry_run`).

    `batch_id` names the audit rows it wrote (None in a preview); `memlens undo BATCH_ID`
    reverses it unless it was a purge.
    """

    action: str
    dry_run: bool
    memory_ids: tuple[str, ...]
    changes: tuple[FieldChange, ...] = ()
    created: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    edges: tuple[EdgeChange, ...] = ()
    batch_id: str | None = None
    purged: bool = False
    notes: tuple[str, ...] = ()
    versions: dict[str, int] = field(default_factory=dict)
    #: The state of the selected memories the plan was made from (id -> a stamp); applying
    #: with `expect=` a preview refuses when it no longer matches.
    basis: dict[str, str] = field(default_factory=dict, compare=False)
    verification: Any = None

    @property
    def count(self) -> int:
        """How many memories the action touches."""
        return len(self.memory_ids)

    def changed_fields(self, memory_id: str) -> list[FieldChange]:
        """The field changes of one memory."""
        return [c for c in self.changes if c.memory_id == memory_id]

    def summary(self) -> str:
        """One line: what was (or would be) done."""
        verb = "would change" if self.dry_run else "changed"
        parts = [f"{self.action}: {verb} {self.count} memor{'y' if self.count == 1 else 'ies'}"]
        if self.created:
            parts.append(f"{len(self.created)} created")
        if self.deleted:
            parts.append(f"{len(self.deleted)} {'purged' if self.purged else 'deleted'}")
        for kind in ("added", "removed", "moved"):
            n = sum(1 for e in self.edges if e.change == kind)
            if n:
                parts.append(f"{n} edge{'s' if n != 1 else ''} {kind}")
        if self.batch_id:
            parts.append(f"batch {self.batch_id}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the verification as its own dict when present)."""
        out = asdict(self)
        out.pop("basis")
        if self.verification is not None and hasattr(self.verification, "to_dict"):
            out["verification"] = self.verification.to_dict()
        out["summary"] = self.summary()
        return out
