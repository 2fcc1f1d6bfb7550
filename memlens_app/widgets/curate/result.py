"""The Curate page's state between reruns, and the outcome of its last write: the summary,
a purge's verification, what changed, and "Undo" (also pressed from the audit log)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from memlens_app.widgets.common.markup import md
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.curate.lineage import receipt_download
from memlens_app.widgets.curate.report import report_view, verification_view
from memlens_app.widgets.curate.table import clear_selection
from memory_core import CurationReport, MemlensError, Memory, MemoryStore, undo

#: Session-state keys: the preview awaiting confirmation, the last result, and a one-time
#: message for the audit log (an undo pressed there).
PLANNED, RESULT, FLASH = "curate_planned", "curate_result", "curate_flash"


@dataclass(frozen=True)
class Done:
    """The last action's report, for the store and tenant `where`."""

    where: tuple[str, str]
    report: CurationReport


def memories(n: int) -> str:
    """ "1 memory", "2 memories"."""
    return f"{n} memor{'y' if n == 1 else 'ies'}"


def finish(store: MemoryStore, report: CurationReport) -> None:
    """After a write: keep its report as the result, drop the preview and the table's
    selection (rows may have moved), and run the page again on the new data."""
    st.session_state[RESULT] = Done((store.uri, store.tenant), report)
    st.session_state.pop(PLANNED, None)
    clear_selection()
    st.rerun()


def undo_batch(store: MemoryStore, batch_id: str, *, flash: bool = False) -> None:
    """Undo `batch_id`; its report becomes the page's result (`flash`: also said once
    where the button was, the audit log). A refusal (a later change touched the same
    memories, a purge) is shown as one message."""
    try:
        report = undo(store, batch_id)
    except MemlensError as exc:
        show_error(exc)
        return
    if flash:
        st.session_state[FLASH] = report.summary()
    finish(store, report)


def result_view(store: MemoryStore, listed: Mapping[str, Memory]) -> None:
    """The last action's outcome, with its batch id and an "Undo" button."""
    done = st.session_state.get(RESULT)
    if not isinstance(done, Done) or done.where != (store.uri, store.tenant):
        return
    report = done.report
    st.success(md(report.summary()))
    if report.verification is not None:
        verification_view(report.verification, key="curate_result_verify")
    receipt_download(report)
    with st.expander("What changed"):
        named = {**store.get_many(report.memory_ids[:200]), **listed}
        report_view(report, key="curate_result", listed=named)
    if report.purged:
        st.caption("A purge cannot be undone.")
    elif report.batch_id and not store.read_only and st.button(
            "Undo", key="curate_undo_result", icon=":material/undo:",
            help=f"Undo batch {report.batch_id}: put every memory and edge it changed back"):
        undo_batch(store, report.batch_id)
