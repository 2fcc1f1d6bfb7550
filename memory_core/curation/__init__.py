"""Curation: edit, archive, restore, supersede, merge, delete (optionally purge), undo,
previews and `verify_deleted` (docs/design/curation.md); corrections and citations
(`correct`, `cite`: docs/design/records.md, docs/design/events.md); reflections
(`consolidate`); the audit read as batches (`audit_batches`). No Streamlit here."""

from memory_core.curation.actions import (
    EDITABLE,
    archive,
    delete,
    edit,
    merge,
    merge_many,
    restore,
    supersede,
)
from memory_core.curation.cite import cite
from memory_core.curation.consolidate import consolidate
from memory_core.curation.correct import correct
from memory_core.curation.history import AuditBatch, audit_batches, undone_batches
from memory_core.curation.learning import KINDS as CORRECTION_KINDS
from memory_core.curation.learning import VERDICTS
from memory_core.curation.plan import Selection
from memory_core.curation.preview import preview
from memory_core.curation.purge import PURGE_NOTE
from memory_core.curation.report import CurationReport, EdgeChange, FieldChange
from memory_core.curation.undo import undo
from memory_core.curation.verify import Check, Verification, verify_deleted

__all__ = [
    "CORRECTION_KINDS", "EDITABLE", "PURGE_NOTE", "VERDICTS", "AuditBatch", "Check",
    "CurationReport", "EdgeChange", "FieldChange", "Selection", "Verification", "archive",
    "audit_batches", "cite", "consolidate", "correct", "delete", "edit", "merge", "merge_many",
    "preview", "restore", "supersede", "undo", "undone_batches", "verify_deleted",
]
