"""Curation: edit, archive, restore, supersede, merge, delete (optionally purge), undo,
previews and `verify_deleted` (DESIGN.md section 13). No Streamlit here."""

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
from memory_core.curation.history import AuditBatch, audit_batches
from memory_core.curation.plan import Selection
from memory_core.curation.preview import preview
from memory_core.curation.purge import PURGE_NOTE
from memory_core.curation.report import CurationReport, EdgeChange, FieldChange
from memory_core.curation.undo import undo
from memory_core.curation.verify import Check, Verification, verify_deleted

__all__ = [
    "EDITABLE", "PURGE_NOTE", "AuditBatch", "Check", "CurationReport", "EdgeChange",
    "FieldChange", "Selection", "Verification", "archive", "audit_batches", "delete", "edit",
    "merge", "merge_many", "preview", "restore", "supersede", "undo", "verify_deleted",
]
