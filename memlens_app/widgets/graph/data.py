"""The Graph page's engine calls, cached until the memories or edges table moves (every
widget click reruns the page; a 3-hop neighbourhood or graph health reads the whole graph).

Decayed strengths are computed when an entry is made, so entries also expire after
`FRESH_S` seconds: edges keep decaying while nobody writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import streamlit as st

from memlens_app.widgets.common.state import get_store
from memory_core import (
    Contradiction,
    GraphHealth,
    Lineage,
    Memory,
    MemoryStore,
    Neighbourhood,
    SupersessionChain,
    contradictions,
    graph_health,
    lineage,
    neighbourhood,
    neighbourhood_html,
    supersession_chain,
)

FRESH_S = 600


@dataclass(frozen=True)
class View:
    """What the controls ask for: the focus and the neighbourhood's bounds."""

    focus: str
    hops: int
    relations: tuple[str, ...] | None  # None: every relation, those outside the vocabulary too
    min_strength: float
    since: datetime | None
    until: datetime | None
    include_inactive: bool
    limit: int


def versions(store: MemoryStore) -> tuple[int, int]:
    """The (memories, edges) table versions: the cache key of everything here."""
    current = store.table_versions()
    return current["memories"], current["edges"]


@st.cache_data(show_spinner="Walking the graph…", max_entries=16, ttl=FRESH_S)
def get_neighbourhood(uri: str, tenant: str, stamp: tuple[int, int], view: View
                      ) -> Neighbourhood:
    return neighbourhood(get_store(uri, tenant), view.focus, hops=view.hops,
                         relations=view.relations, min_strength=view.min_strength,
                         since=view.since, until=view.until, limit=view.limit,
                         include_inactive=view.include_inactive)


@st.cache_data(show_spinner=False, max_entries=16, ttl=FRESH_S)
def get_html(hood: Neighbourhood, height: int) -> str:
    return neighbourhood_html(hood, height=height)


@st.cache_data(show_spinner=False, max_entries=32, ttl=FRESH_S)
def get_lineage(uri: str, tenant: str, stamp: tuple[int, int], focus: str, depth: int,
                relations: tuple[str, ...]) -> Lineage:
    return lineage(get_store(uri, tenant), focus, depth=depth, relations=relations)


@st.cache_data(show_spinner=False, max_entries=32, ttl=FRESH_S)
def get_chain(uri: str, tenant: str, stamp: tuple[int, int], focus: str) -> SupersessionChain:
    return supersession_chain(get_store(uri, tenant), focus)


@st.cache_data(show_spinner="Listing contradictions…", max_entries=8, ttl=FRESH_S)
def get_contradictions(uri: str, tenant: str, stamp: tuple[int, int]) -> list[Contradiction]:
    return contradictions(get_store(uri, tenant))


@st.cache_data(show_spinner="Checking the graph…", max_entries=8, ttl=FRESH_S)
def get_health(uri: str, tenant: str, stamp: tuple[int, int]) -> GraphHealth:
    return graph_health(get_store(uri, tenant))


def memories(store: MemoryStore, ids: list[str] | tuple[str, ...]) -> dict[str, Memory]:
    """The memories of `ids` this tenant holds (any status)."""
    return store.get_many(list(dict.fromkeys(ids))) if ids else {}


def short(text: str, width: int = 70) -> str:
    """The first line of `text`, cut to `width` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
