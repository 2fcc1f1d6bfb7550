"""`ImportReport`: what `memlens import` read, skipped, merged and wrote."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class ImportReport:
    """What an import read and wrote."""

    path: str
    format: str
    schema_version: int
    migrations: tuple[str, ...]
    mode: str
    records: dict[str, int]
    inserted: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    edges_added: int = 0
    edges_skipped: int = 0
    dangling_edges: int = 0
    audit_added: int = 0
    audit_skipped: int = 0
    events_added: int = 0
    events_skipped: int = 0
    vectors_kept: int = 0
    embedded: int = 0
    pending: int = 0
    embedding_error: str | None = None
    notes: tuple[str, ...] = ()
    table_versions: dict[str, int] = field(default_factory=dict)
    #: Records the reader left out on purpose: {reason: {"count", "examples"}}.
    skipped: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Memories left out because the tenant or the file already holds their content
    #: (their id -> the id kept).
    duplicates: dict[str, str] = field(default_factory=dict)
    #: True when nothing was written: `inserted` then lists the memories that would be new
    #: and `existing` those already in the tenant (updated or unchanged on a real run).
    dry_run: bool = False
    existing: tuple[str, ...] = ()
    #: Query-set lines written (benchmark formats), and where.
    queries: int = 0
    queries_path: str | None = None

    @property
    def read(self) -> int:
        """Records read from the input: staged, duplicates and skipped together."""
        return (sum(self.records.values()) + len(self.duplicates)
                + sum(int(s["count"]) for s in self.skipped.values()))

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (ids as lists), with the `read` total."""
        data = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        data["read"] = self.read
        return data
