"""Widgets over the store itself: its audit trail as a table, the demo-seeding button and
the warning that the store has outgrown its indexes."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import streamlit as st

from memlens_app.widgets.common.markup import cells, code, md
from memlens_app.widgets.common.read_only import read_only_notice
from memlens_app.widgets.common.state import create_configured_store, show_error
from memory_core import (
    AuditEntry,
    MemlensError,
    MemoryStore,
    StoreStats,
    index_fix_command,
    seed_from_export,
)


def audit_table(entries: Sequence[AuditEntry]) -> None:
    """Audit entries as a table (rendered as data, never as HTML)."""
    if not entries:
        st.caption("No audit entries yet.")
        return
    st.dataframe(
        cells([
            {
                "at": e.at,
                "actor": e.actor,
                "action": e.action,
                "records": len(e.target_ids),
                "reason": e.reason or "",
                "version": e.table_version,
            }
            for e in entries
        ]),
        hide_index=True,
    )


def seed_demo_button(store: MemoryStore | None) -> None:
    """A button that seeds the store with the demo corpus, with a progress bar. `None`: the
    configured store does not exist yet, and the button creates it (nothing else in the app
    creates a store). Disabled, with the reason, when the app is read-only."""
    if not read_only_notice(store, "seed the demo corpus"):
        st.button("Seed the demo corpus", disabled=True)
        return
    if not st.button("Seed the demo corpus"):
        return
    bar = st.progress(0.0, text="Embedding the demo corpus…")
    done = [0]

    def count(n: int) -> None:
        done[0] += n

    # The import embeds while LanceDB pulls its batches, on LanceDB's own thread, where a
    # Streamlit element cannot be updated (NoSessionContext): seed on a worker thread that
    # only counts, and move the bar from this one.
    try:
        target = store or create_configured_store()
        with ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(seed_from_export, target, progress=count)
            while not future.done():
                bar.progress(min(1.0, done[0] / 3000), text=f"Embedded {done[0]} memories")
                time.sleep(0.25)
        report = future.result()
    except MemlensError as exc:
        show_error(exc)
        return
    st.success(f"Seeded {report.memories} memories and {report.edges} edges.")
    st.rerun()


def index_health_warning(store: MemoryStore, stats: StoreStats) -> None:
    """A warning with its numbers when the memories table has outgrown its indexes, and the
    command that fixes it for this store and tenant (quoted for the shell)."""
    health = stats.index_health
    summary = health.summary() if health is not None else None
    if health is None or summary is None:
        return
    fix = index_fix_command(store.uri, store.tenant)
    st.warning(f"{md(summary)} Run {code(fix)} {md(health.FIX_DOES)}.")
