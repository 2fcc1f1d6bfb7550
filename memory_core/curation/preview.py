"""`preview(store, action, ...)`: any curation action's report without writing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_core.curation import actions
from memory_core.curation.consolidate import consolidate
from memory_core.curation.report import CurationReport
from memory_core.curation.undo import undo
from memory_core.model.errors import CurationError
from memory_core.store import MemoryStore

ACTIONS: dict[str, Callable[..., CurationReport]] = {
    "edit": actions.edit, "archive": actions.archive, "restore": actions.restore,
    "supersede": actions.supersede, "merge": actions.merge,
    "merge_many": actions.merge_many, "delete": actions.delete,
    "undo": undo, "consolidate": consolidate,
}


def preview(store: MemoryStore, action: str, *args: Any, **kwargs: Any) -> CurationReport:
    """What `action` (edit, archive, restore, supersede, merge, delete, undo, consolidate)
    would change, field by field, with nothing written: `preview(store, "archive", ids)`."""
    if action not in ACTIONS:
        raise CurationError(f"unknown curation action {action!r}; use one of: "
                            f"{', '.join(ACTIONS)}")
    kwargs["dry_run"] = True
    return ACTIONS[action](store, *args, **kwargs)
