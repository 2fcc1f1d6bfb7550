"""The Curate page's action panel: pick an action, preview it (and its impact on
retrieval: `curate_impact`), confirm it.

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

from memlens_app.widgets.common.markup import md
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.curate.impact import impact_button, impact_result
from memlens_app.widgets.curate.inputs import LABELS, Request, read_request
from memlens_app.widgets.curate.lineage import keep_receipt
from memlens_app.widgets.curate.report import report_view
from memlens_app.widgets.curate.result import PLANNED, finish, memories, result_view
from memlens_app.widgets.curate.table import selected_view
from memory_core import PURGE_NOTE, CurationReport, Filter, MemlensError, Memory, MemoryStore


@dataclass(frozen=True)
class Planned:
    """A preview waiting for its confirmation."""

    request: Request
    report: CurationReport
    nonce: str = field(default_factory=lambda: uuid.uuid4().hex)


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
    label = f"Confirm: {request.action} {memories(n)}"
    if not st.button(label, type="primary", key="curate_confirm", disabled=not ready):
        return
    if not ready:  # a disabled button cannot be pressed; this keeps the rule if it is
        st.error(f"Type {n} to confirm the purge; nothing was changed.")
        return
    try:
        paths = request.derived_paths(store)  # before the purge removes their edges
        done = request.call(store, expect=report)
        keep_receipt(store, done, paths)
    except MemlensError as exc:
        st.session_state.pop(PLANNED, None)
        show_error(exc)
        return
    finish(store, done)


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
        clicked = False
        if request is not None:
            with st.container(horizontal=True):
                clicked = st.button("Preview", key="curate_preview",
                                    icon=":material/visibility:")
                impact_button(store, request)
    with right:
        selected_view(ids, listed)
    if request is None:
        return
    if clicked:
        try:
            report = request.call(store, dry_run=True)
        except MemlensError as exc:
            st.session_state.pop(PLANNED, None)
            show_error(exc)
            return
        st.session_state[PLANNED] = Planned(request, report)
    planned = st.session_state.get(PLANNED)
    if not isinstance(planned, Planned) or planned.request != request:
        st.caption("Preview shows what would change; nothing is written until you confirm.")
        impact_result(request)
        return
    st.markdown(f"**Preview:** {md(planned.report.summary())}")
    report_view(planned.report, key="curate_preview", listed=listed)
    impact_result(request)
    if not planned.report.memory_ids and not planned.report.edges:
        st.info("Nothing would change.")
        return
    _confirm(store, planned)
