"""`WriteStep`: what a part of the store that writes is given by the store that builds it.

Every write of memlens runs as one step: under the store's write lock, with a journal of the
table versions before it (`store/guard.py`), refused before any work on a read-only handle.
A part (`AuditLog`, `EdgeTable`, `EventLog`, `BulkTables`, `ChangeTables`, `FullTextIndex`)
takes its writes through this protocol, never through the class that owns it, so each part
depends on what it is given: its table, its tenant and this step.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol


class WriteStep(Protocol):
    """The store's write step, as the parts that write see it."""

    def writing(self, action: str) -> AbstractContextManager[None]:
        """Run a write as one step (reentrant: nested writes join the outer one)."""

    def check_writable(self, action: str, *, hint: str = "") -> None:
        """Raise `ReadOnlyError` if the handle is read-only."""

    def forget_caches(self) -> None:
        """Drop what the process cached about the tables (after a bulk write)."""
