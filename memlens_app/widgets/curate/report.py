"""A curation report on the page: field diffs, memories created or deleted, edges added,
removed or moved, notes, and a purge's verification. Every value is shown as table text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import streamlit as st

from memlens_app.widgets.common.markup import cells, md
from memory_core import CurationReport, Memory, Verification, visible


def as_text(value: Any) -> str:
    """A field value as one table cell: text as it is, anything else as JSON, None as —."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


Width = Literal["small", "medium", "large"] | int
#: Column widths of the report tables: the memory's first line must not crowd out the diff.
_WIDTHS: dict[str, Width] = {"content": 230, "field": 130, "before": 210, "after": 210,
                             "change": 80}
#: An edge's before and after ("source -relation-> target") are the table.
_EDGE_WIDTHS: dict[str, Width] = {"change": 80, "before": 340, "after": 340, "edge": "small"}
_CHECK_WIDTHS: dict[str, Width] = {"check": 190, "status": 70, "detail": "large"}


def _table(rows: list[dict[str, Any]], key: str,
           widths: Mapping[str, Width] = _WIDTHS) -> None:
    st.dataframe(cells(rows), hide_index=True, key=key,
                 column_config={name: st.column_config.TextColumn(name, width=width)
                                for name, width in widths.items() if rows and name in rows[0]})


def snippet(memory: Memory | None, width: int = 60) -> str:
    """The first line of a memory's content, shortened, as plain text ("" for None)."""
    if memory is None:
        return ""
    line = (memory.content.strip().splitlines() or [""])[0]
    return visible(line if len(line) <= width else line[: width - 1] + "…")


def report_view(report: CurationReport, key: str,
                listed: Mapping[str, Memory] | None = None) -> None:
    """What `report` changed (or, in a preview, would change), each memory named by its id
    and the first line of its content when `listed` has it; a purge's verification is
    `verification_view`'s."""
    known = listed or {}
    for note in report.notes:
        st.caption(md(note))
    if report.changes:
        st.markdown("**Field changes**")
        _table([{"content": snippet(known.get(c.memory_id)), "field": c.field,
                 "before": as_text(c.before), "after": as_text(c.after), "memory": c.memory_id}
                for c in report.changes], key=f"{key}_changes")
    ids = [{"change": "created", "content": snippet(known.get(i)), "memory": i}
           for i in report.created]
    ids += [{"change": "purged" if report.action == "purge" else "deleted",
             "content": snippet(known.get(i)), "memory": i} for i in report.deleted]
    if ids:
        st.markdown("**Memories created or deleted**")
        _table(ids, key=f"{key}_ids")
    if report.edges:
        st.markdown("**Edges**")
        _table([{"change": e.change, "before": e.before or "—", "after": e.after or "—",
                 "edge": e.edge_id} for e in report.edges], key=f"{key}_edges",
               widths=_EDGE_WIDTHS)


def verification_view(verification: Verification, key: str) -> None:
    """The checks of `verify_deleted`, and whether any failed."""
    failed = [c for c in verification.checks if c.status == "fail"]
    if verification.passed:
        st.success(f"Verified: the memories are gone ({len(verification.checks)} checks, "
                   f"none failed).")
    else:
        st.error(f"Verification failed: {len(failed)} of {len(verification.checks)} checks "
                 f"found the memories still there.")
    _table([{"check": c.name, "status": c.status, "detail": c.detail}
            for c in verification.checks], key=key, widths=_CHECK_WIDTHS)
