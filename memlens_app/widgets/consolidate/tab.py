"""The Curate page's Consolidate tab: the candidates (strongest first) and the picked one's
members, draft and actions; then the "evidence changed" queue of reflections whose sources
changed. The engine does the work (`consolidation_candidates`, `consolidate`, `reject`,
`evidence_changes`); a read-only store shows both lists and says why nothing can be written."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.read_only import read_only_notice
from memlens_app.widgets.common.state import show_error
from memlens_app.widgets.consolidate.actions import RESET, actions, outcome_view
from memlens_app.widgets.consolidate.candidates import (
    TABLE,
    by_strength,
    candidate_heading,
    members_view,
    pick_candidate,
)
from memlens_app.widgets.consolidate.data import get_candidates, get_evidence, stamp_of
from memlens_app.widgets.consolidate.evidence import evidence_queue
from memory_core import MemlensError, MemoryStore


def _take_reset() -> None:
    """After a write, select nothing (the first candidate shows): rows have moved."""
    if st.session_state.pop(RESET, False):
        st.session_state[TABLE] = {"selection": {"rows": [], "columns": [], "cells": []}}


def consolidate_tab(store: MemoryStore) -> None:
    """Candidates, the picked one's review, the evidence queue."""
    stamp = stamp_of(store)
    outcome_view(store)
    st.subheader("Candidates", anchor=False)
    st.caption("Groups of related observations, events and learnings that no reflection "
               "consolidates yet, strongest first (strength = cohesion × n / (n + 2) for n "
               "members). Pick a row to review it.")
    try:
        candidates = by_strength(get_candidates(store.uri, store.tenant, stamp))
    except MemlensError as exc:
        show_error(exc)
        candidates = []
    else:
        _take_reset()
        candidate = pick_candidate(candidates)
        if candidate is None:
            st.info("No candidate: every group of related memories is consolidated or "
                    "rejected, or too few memories are alike.")
        else:
            known = store.get_many(list(candidate.members))
            candidate_heading(candidate, candidates.index(candidate) + 1)
            members_view(candidate, known)
            if read_only_notice(store, "accept or reject a candidate"):
                actions(store, candidate, known)
    st.subheader("Evidence changed", anchor=False)
    try:
        changes = get_evidence(store.uri, store.tenant, stamp)
    except MemlensError as exc:
        show_error(exc)
        return
    evidence_queue(changes, store.get_many([c.reflection_id for c in changes[:200]]))
