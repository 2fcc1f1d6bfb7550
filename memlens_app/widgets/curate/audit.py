"""The Curate page's audit log: batches filtered by actor, action and date, each with the
records it changed (before and after, field by field) and an undo button when undoable."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from typing import Any

import streamlit as st

from memlens_app.widgets.common.markup import cells, code, md
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.curate.report import as_text
from memlens_app.widgets.curate.result import FLASH, undo_batch
from memory_core import AuditBatch, AuditEntry, MemlensError, MemoryStore, audit_batches

ANY = "(any)"
#: Offered in the action filter; others can be typed.
KNOWN_ACTIONS = ("edit", "archive", "restore", "supersede", "merge", "delete", "purge", "undo",
                 "correct", "link", "unlink", "add", "upsert", "import", "add_edges", "recall",
                 "reembed")
#: Fields left out of a record's diff: bookkeeping every write changes.
_QUIET = frozenset({"updated_at"})
_JSON_CHARS = 4000


def _records(value: Any) -> list[dict[str, Any]] | None:
    """The records an audit before/after value holds, or None when it holds none."""
    if isinstance(value, dict):
        value = value.get("records")
    if isinstance(value, list) and all(isinstance(r, dict) and "id" in r for r in value):
        return value
    return None


def _count(value: Any) -> int | None:
    """How many records an audit value stands for when it keeps only their number."""
    if isinstance(value, dict):
        inner = value.get("records", value)
        if isinstance(inner, dict) and isinstance(inner.get("count"), int):
            return int(inner["count"])
    return None


def _describe(doc: dict[str, Any]) -> str:
    if doc.get("purged"):
        return f"(purged; content hash {doc.get('content_hash')})"
    if "content" in doc:
        return str(doc["content"])
    if "source_id" in doc:
        return f"{doc['source_id']} -{doc.get('relation')}-> {doc.get('target_id')}"
    return as_text(doc)


def row_diffs(entry: AuditEntry) -> list[dict[str, str]] | None:
    """One table row per record field the audit row changed (a record created, deleted or
    purged is one row); None when the row keeps no records to compare."""
    before, after = _records(entry.before), _records(entry.after)
    if before is None and after is None:
        return None
    kind = entry.before.get("kind") if isinstance(entry.before, dict) else None
    olds = {str(r["id"]): r for r in before or []}
    news = {str(r["id"]): r for r in after or []}
    rows = []
    for rid in dict.fromkeys([*olds, *news]):
        old, new = olds.get(rid), news.get(rid)
        base = {"record": rid, "kind": str(kind or (new or old or {}).get("kind") or "")}
        if old is None or new is None or old.get("purged") or new.get("purged"):
            change = "(created)" if old is None else "(deleted)" if new is None else "(purged)"
            rows.append({**base, "field": change, "before": _describe(old) if old else "—",
                         "after": _describe(new) if new else "—"})
            continue
        rows += [{**base, "field": name, "before": as_text(old.get(name)),
                  "after": as_text(new.get(name))}
                 for name in dict.fromkeys([*old, *new])
                 if name not in _QUIET and old.get(name) != new.get(name)]
    return rows


def _batch_body(store: MemoryStore, batch: AuditBatch, index: int) -> None:
    ident = code(batch.batch_id) if batch.batch_id else "none (not a curation batch)"
    st.caption(f"Batch {ident} · reason: {md(batch.reason or '—')}")
    for n, row in enumerate(batch.rows):
        diffs = row_diffs(row)
        if diffs:
            st.dataframe(cells(diffs), hide_index=True, key=f"curate_audit_{index}_{n}")
        elif isinstance(row.after, dict) and "undone" in row.after:
            st.caption(f"Undid batch {code(row.after['undone'])}.")
        elif (count := _count(row.before) or _count(row.after)) is not None:
            st.caption(f"{count} records (copies are not kept for more than 100).")
        elif row.before is not None or row.after is not None:
            text = json.dumps({"before": row.before, "after": row.after}, default=str,
                              ensure_ascii=False, indent=1)
            st.code(text[:_JSON_CHARS] + ("\n…" if len(text) > _JSON_CHARS else ""),
                    language="json")
    if not batch.undoable or batch.batch_id is None:
        return
    if st.button("Undo this batch", key=f"curate_undo_{batch.batch_id}",
                 disabled=store.read_only, icon=":material/undo:",
                 help="read-only: this store cannot be changed here" if store.read_only
                 else "Put every memory and edge this batch changed back as it was"):
        undo_batch(store, batch.batch_id, flash=True)


def _day(day: object, end: bool) -> datetime | None:
    if not isinstance(day, date):
        return None
    return datetime.combine(day, time.max if end else time.min, UTC)


def audit_log(store: MemoryStore) -> None:
    """The audit log's filters and its batches, newest first."""
    c1, c2, c3, c4, c5 = st.columns([2, 2, 2, 2, 1])
    actor = c1.text_input("Actor", key="curate_audit_actor").strip()
    action = c2.selectbox("Action", [ANY, *KNOWN_ACTIONS], key="curate_audit_action",
                          accept_new_options=True)
    since = c3.date_input("On or after", value=None, key="curate_audit_since")
    until = c4.date_input("On or before", value=None, key="curate_audit_until")
    limit = int(c5.number_input("Batches", 1, 500, 20, key="curate_audit_limit"))
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(md(flash))
    try:
        batches = audit_batches(store, since=_day(since, end=False), until=_day(until, end=True),
                                actor=actor or None,
                                action=None if action in (None, ANY) else action, limit=limit)
    except MemlensError as exc:
        show_error(exc)
        return
    if not batches:
        st.caption("No audit entries match.")
    for index, batch in enumerate(batches):
        label = (f"{batch.at:%Y-%m-%d %H:%M:%S} · **{md(batch.action)}** · {md(batch.actor)}"
                 f" · {len(batch.memory_ids)} memor{'y' if len(batch.memory_ids) == 1 else 'ies'}")
        with st.expander(label):
            _batch_body(store, batch, index)
