"""The Consolidate tab's engine reads, cached until any table of the store moves (a
rejection, a consolidation, an edit of a member or a new memory all change the answer)."""

from __future__ import annotations

import streamlit as st

from memlens_app.widgets.common.state import get_store
from memory_core import (
    Candidate,
    EvidenceChange,
    MemoryStore,
    consolidation_candidates,
    evidence_changes,
)

#: (table name, version) of every table: the cache key of everything here.
Stamp = tuple[tuple[str, int], ...]


def stamp_of(store: MemoryStore) -> Stamp:
    """The store's table versions, (name, version) sorted."""
    return tuple(sorted(store.table_versions().items()))


@st.cache_data(show_spinner="Finding consolidation candidates…", max_entries=8)
def get_candidates(uri: str, tenant: str, stamp: Stamp) -> list[Candidate]:
    """The tenant's current candidates, strongest first (rejected ones left out)."""
    return consolidation_candidates(get_store(uri, tenant))


@st.cache_data(show_spinner="Checking the reflections' evidence…", max_entries=8)
def get_evidence(uri: str, tenant: str, stamp: Stamp) -> list[EvidenceChange]:
    """Every reflection of the tenant whose sources changed since it was written."""
    return evidence_changes(get_store(uri, tenant))


@st.cache_data(show_spinner=False, max_entries=32)
def get_flags(uri: str, tenant: str, stamp: Stamp, reflection_id: str
              ) -> list[EvidenceChange]:
    """The evidence change of one reflection (an empty list: its sources are as they were)."""
    return evidence_changes(get_store(uri, tenant), [reflection_id])
