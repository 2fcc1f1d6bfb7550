"""Widgets over the store itself: its audit trail as a table, and the demo-seeding button."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from memory_core import AuditEntry, MemlensError, MemoryStore, seed_from_export


def audit_table(entries: Sequence[AuditEntry]) -> None:
    """Audit entries as a table (rendered as data, never as HTML)."""
    if not entries:
        st.caption("No audit entries yet.")
        return
    st.dataframe(
        [
            {
                "at": e.at,
                "actor": e.actor,
                "action": e.action,
                "records": len(e.target_ids),
                "reason": e.reason or "",
                "version": e.table_version,
            }
            for e in entries
        ],
        hide_index=True,
    )


def seed_demo_button(store: MemoryStore) -> None:
    """A button that seeds the store with the demo corpus, with a progress bar."""
    if store.read_only:
        st.caption("The store is read-only, so it cannot be seeded here.")
        return
    if not st.button("Seed the demo corpus"):
        return
    bar = st.progress(0.0, text="Embedding the demo corpus…")
    done = {"n": 0}

    def advance(n: int) -> None:
        done["n"] += n
        bar.progress(min(1.0, done["n"] / 3000), text=f"Embedded {done['n']} memories")

    try:
        report = seed_from_export(store, progress=advance)
    except MemlensError as exc:
        st.error(str(exc))
        return
    st.success(f"Seeded {report.memories} memories and {report.edges} edges.")
    st.rerun()
