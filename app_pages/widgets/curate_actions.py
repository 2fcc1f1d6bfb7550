"""The Curate page's action panel: preview an action, confirm it, see the result, undo it.

The confirmation runs the action again with the preview as `expect=`, so it refuses, changing
nothing, when the memories changed after the preview (another tab, the CLI, an agent). A
preview is shown only while the inputs still describe it; a purge also needs the number of
memories typed in.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import streamlit as st

from app_pages.widgets.curate_inputs import LABELS, Request, read_request
from app_pages.widgets.curate_report import report_view, snippet, verification_view
from app_pages.widgets.curate_table import clear_selection
from app_pages.widgets.markup import cells, md
from app_pages.widgets.state import show_error
from memory_core import (
    PURGE_NOTE,
    CurationReport,
    Filter,
    MemlensError,
    Memory,
    MemoryStore,
    undo,
)

_PLANNED, _RESULT = "curate_planned", "curate_result"
#: A one-time message for the audit log (an undo pressed there).
FLASH = "curate_flash"


@dataclass(frozen=True)
class Planned:
    """A preview waiting for its confirmation."""

    request: Request
    report: CurationReport
    nonce: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass(frozen=True)
class Done:
    """The last action's report, for the store and tenant `where`."""

    where: tuple[str, str]
    report: CurationReport


def _memories(n: int) -> str:
    return f"{n} memor{'y' if n == 1 else 'ies'}"


def _finish(store: MemoryStore, report: CurationReport) -> None:
    st.session_state[_RESULT] = Done((store.uri, store.tenant), report)
    st.session_state.pop(_PLANNED, None)
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
    _finish(store, report)


def result_view(store: MemoryStore, listed: Mapping[str, Memory]) -> None:
    """The last action's outcome, with its batch id and an "Undo" button."""
    done = st.session_state.get(_RESULT)
    if not isinstance(done, Done) or done.where != (store.uri, store.tenant):
        return
    report = done.report
    st.success(md(report.summary()))
    if report.verification is not None:
        verification_view(report.verification, key="curate_result_verify")
    with st.expander("What changed"):
        named = {**store.get_many(report.memory_ids[:200]), **listed}
        report_view(report, key="curate_result", listed=named)
    if report.purged:
        st.caption("A purge cannot be undone.")
    elif report.batch_id and not store.read_only and st.button(
            "Undo", key="curate_undo_result", icon=":material/undo:",
            help=f"Undo batch {report.batch_id}: put every memory and edge it changed back"):
        undo_batch(store, report.batch_id)


def _confirm(store: MemoryStore, planned: Planned) -> None:
    """The confirm step (a purge: behind the typed number of memories)."""
    request, report = planned.request, planned.report
    n = report.count
    ready = True
    if request.action == "purge":
        st.error(f"**A purge is final.** {md(PURGE_NOTE)}")
        typed = st.text_input(f"Type {n} (the number of memories) to purge them for good",
                              key=f"curate_purge_typed_{planned.nonce}")
        ready = typed.strip() == str(n)
    label = f"Confirm: {request.action} {_memories(n)}"
    if not st.button(label, type="primary", key="curate_confirm", disabled=not ready):
        return
    if not ready:  # a disabled button cannot be pressed; this keeps the rule if it is
        st.error(f"Type {n} to confirm the purge; nothing was changed.")
        return
    try:
        done = request.call(store, expect=report)
    except MemlensError as exc:
        st.session_state.pop(_PLANNED, None)
        show_error(exc)
        return
    _finish(store, done)


def _selected_view(ids: Sequence[str], listed: Mapping[str, Memory]) -> None:
    if not ids:
        return
    st.markdown(f"**Selected: {_memories(len(ids))}**")
    st.dataframe(cells([{"content": snippet(listed.get(i)), "status": listed[i].status
                         if i in listed else "", "id": i} for i in ids]),
                 hide_index=True, key="curate_selected", height=min(36 + 35 * len(ids), 216))


def action_panel(store: MemoryStore, ids: Sequence[str], listed: Mapping[str, Memory],
                 everything: Filter | None, matching: int) -> None:
    """The last result; the action picker, its inputs (left) and the selection (right);
    then the preview and the confirm step."""
    result_view(store, listed)
    action = st.segmented_control("Action", list(LABELS), format_func=LABELS.__getitem__,
                                  default="archive", required=True, key="curate_action")
    left, right = st.columns([2, 3], gap="large")
    with left:
        request = read_request(store, action or "archive", ids, listed, everything, matching)
        clicked = request is not None and st.button("Preview", key="curate_preview",
                                                     icon=":material/visibility:")
    with right:
        _selected_view(ids, listed)
    if request is None:
        return
    if clicked:
        try:
            report = request.call(store, dry_run=True)
        except MemlensError as exc:
            st.session_state.pop(_PLANNED, None)
            show_error(exc)
            return
        st.session_state[_PLANNED] = Planned(request, report)
    planned = st.session_state.get(_PLANNED)
    if not isinstance(planned, Planned) or planned.request != request:
        st.caption("Preview shows what would change; nothing is written until you confirm.")
        return
    st.markdown(f"**Preview:** {md(planned.report.summary())}")
    report_view(planned.report, key="curate_preview", listed=listed)
    if not planned.report.memory_ids and not planned.report.edges:
        st.info("Nothing would change.")
        return
    _confirm(store, planned)
