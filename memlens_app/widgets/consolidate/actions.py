"""The Consolidate tab's actions on one candidate: the draft in an editable box, Accept
(previewed, then confirmed: a `consolidate` batch, method `rule_based`, or `manual` once the
draft is edited), Reject, and the impact preview on retrieval; and the last accept's result
with its Undo and a link to the new reflection in the Graph page.

As in the other Curate actions, the confirmation runs `consolidate` again with the preview as
`expect=`, so it refuses, changing nothing, when a member changed after the preview.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from memlens_app.widgets.common.markup import md
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.consolidate.impact import impact_button, impact_result
from memlens_app.widgets.curate.report import report_view
from memlens_app.widgets.graph.link import graph_button
from memory_core import (
    Candidate,
    CurationReport,
    MemlensError,
    Memory,
    MemoryStore,
    consolidate,
    reject,
    undo,
)

#: Session-state keys: the preview awaiting confirmation, the last outcome (an accept's report
#: or a rejection's line), and a request to clear the candidates table's selection.
PLANNED, RESULT, RESET = "consolidate_planned", "consolidate_result", "consolidate_reset"


@dataclass(frozen=True)
class Accept:
    """An accept as the inputs describe it: the candidate, the text and the options."""

    where: tuple[str, str]
    candidate_id: str
    members: tuple[str, ...]
    content: str
    method: str
    archive_sources: bool
    reason: str | None = None

    def call(self, store: MemoryStore, **extra: Any) -> CurationReport:
        """`consolidate` with these inputs (`dry_run=True`: the preview; `expect=`: the
        confirmation)."""
        return consolidate(store, list(self.members), self.content,
                           archive_sources=self.archive_sources, method=self.method,
                           candidate_id=self.candidate_id, reason=self.reason, **extra)


@dataclass(frozen=True)
class Planned:
    """A preview waiting for its confirmation."""

    accept: Accept
    report: CurationReport
    nonce: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass(frozen=True)
class Outcome:
    """The last write of the tab, for the store and tenant `where`."""

    where: tuple[str, str]
    report: CurationReport | None = None
    rejected: str | None = None


def copied_member(text: str, candidate: Candidate, known: Mapping[str, Memory]) -> int | None:
    """The rank of the member whose whole content `text` is (spaces aside), if one is: a
    reflection must say more than one source, and the store refuses a second copy."""
    words = " ".join(text.split())
    for n, memory_id in enumerate(candidate.members, 1):
        memory = known.get(memory_id)
        if memory is not None and " ".join(memory.content.split()) == words:
            return n
    return None


def draft_editor(store: MemoryStore, candidate: Candidate, known: Mapping[str, Memory]
                 ) -> Accept:
    """The draft in an editable box and the accept's options; the accept they describe."""
    text = st.text_area(
        "Reflection (edit before accepting)", candidate.draft, height=140,
        key=f"consolidate_draft_{candidate.id}",
        help="The rule-based draft: the members' most central sentences. Accepting it as it "
             "is records method rule_based; an edited text records method manual.") or ""
    edited = " ".join(text.split()) != " ".join(candidate.draft.split())
    copied = copied_member(text, candidate, known)
    if copied is not None:
        st.warning(f"The text is member {copied}'s content word for word: the store refuses "
                   f"a second copy of a memory, and a reflection should say what the members "
                   f"share. Edit it before accepting.")
    archive_sources = st.toggle(
        "Archive the sources", key=f"consolidate_archive_{candidate.id}",
        help="Archive the members once the reflection holds them (undo puts them back).")
    st.caption(f"method: **{'manual' if edited else 'rule_based'}**"
               + (" (the draft was edited)" if edited else " (the draft as written)"))
    reason = st.text_input("Reason (kept in the audit log)", key="consolidate_reason")
    return Accept((store.uri, store.tenant), candidate.id, tuple(candidate.members),
                  text.strip(), "manual" if edited else "rule_based", bool(archive_sources),
                  reason.strip() or None)


def _finish(store: MemoryStore, outcome: Outcome) -> None:
    st.session_state[RESULT] = outcome
    st.session_state.pop(PLANNED, None)
    st.session_state[RESET] = True
    st.rerun()


def _confirm(store: MemoryStore, planned: Planned) -> None:
    n = len(planned.accept.members)  # the report counts the reflection it writes
    if not st.button(f"Confirm: consolidate {n} memories", type="primary",
                     key="consolidate_confirm"):
        return
    try:
        done = planned.accept.call(store, expect=planned.report)
    except MemlensError as exc:
        st.session_state.pop(PLANNED, None)
        show_error(exc)
        return
    _finish(store, Outcome((store.uri, store.tenant), report=done))


def _reject(store: MemoryStore, accept: Accept) -> None:
    try:
        reject(store, accept.candidate_id, reason=accept.reason)
    except MemlensError as exc:
        show_error(exc)
        return
    _finish(store, Outcome((store.uri, store.tenant), rejected=accept.candidate_id))


def actions(store: MemoryStore, candidate: Candidate, known: Mapping[str, Memory]) -> None:
    """The draft, Preview accept / Impact / Reject, then the preview and its confirmation."""
    accept = draft_editor(store, candidate, known)
    preview_col, impact_col, reject_col = st.columns(3)
    clicked = preview_col.button("Preview accept", key="consolidate_preview",
                                 icon=":material/visibility:", disabled=not accept.content)
    with impact_col:
        impact_button(store, accept)
    if reject_col.button("Reject", key="consolidate_reject", icon=":material/block:",
                         help="Not a reflection worth keeping: it is not proposed again "
                              "until one of its members changes."):
        _reject(store, accept)
    impact_result(accept)
    if clicked:
        try:
            report = accept.call(store, dry_run=True)
        except MemlensError as exc:
            st.session_state.pop(PLANNED, None)
            show_error(exc)
            return
        st.session_state[PLANNED] = Planned(accept, report)
    planned = st.session_state.get(PLANNED)
    if not isinstance(planned, Planned) or planned.accept != accept:
        st.caption("Preview shows what accepting would write; nothing is written until you "
                   "confirm.")
        return
    st.markdown(f"**Preview:** {md(planned.report.summary())}")
    # the reflection is not in the store yet: its row shows the text it would hold
    shown = {**known, **{i: Memory.new(accept.content, "reflection", id=i)
                         for i in planned.report.created}}
    report_view(planned.report, key="consolidate_preview", listed=shown)
    _confirm(store, planned)


def outcome_view(store: MemoryStore) -> None:
    """The last accept (its summary, the new reflection's Graph link, Undo) or rejection."""
    done = st.session_state.get(RESULT)
    if not isinstance(done, Outcome) or done.where != (store.uri, store.tenant):
        return
    if done.rejected is not None:
        st.success(f"Rejected candidate {md(done.rejected[:12])}: it is not proposed again "
                   f"until one of its members changes.")
        return
    report = done.report
    if report is None:
        return
    st.success(md(report.summary()))
    left, right = st.columns(2)
    if report.created:
        with left:
            graph_button(report.created[0], key="consolidate_result_graph",
                         label="The reflection in Graph")
    if report.action == "undo":
        return
    if report.batch_id and not store.read_only and right.button(
            "Undo", key="consolidate_undo", icon=":material/undo:",
            help=f"Undo batch {report.batch_id}: remove the reflection and its edges"):
        try:
            undone = undo(store, report.batch_id)
        except MemlensError as exc:
            show_error(exc)
            return
        _finish(store, Outcome((store.uri, store.tenant), report=undone))
