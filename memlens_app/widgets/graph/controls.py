"""The Graph page's controls: hops, relations, minimum decayed strength, time window,
archived/superseded memories, and the node cap."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import streamlit as st

from memlens_app.widgets.graph.data import View
from memory_core import RELATIONS

MAX_NODES = 1000


def _moment(day: date | None, end: bool) -> datetime | None:
    if day is None:
        return None
    return datetime.combine(day, time.max if end else time.min, tzinfo=UTC)


def controls(focus: str) -> View | None:
    """The neighbourhood the controls ask for around `focus`; None (said on the page) when
    they select no relation or an empty time window."""
    row = st.columns([1.2, 4, 1.6, 1.2])
    hops = row[0].slider("Hops", 1, 3, 1, key="graph_hops")
    chosen = row[1].multiselect("Relations", RELATIONS, default=list(RELATIONS),
                                key="graph_relations")
    strength = row[2].slider("Min decayed strength", 0.0, 1.0, 0.0, 0.05,
                             key="graph_min_strength",
                             help="Edges weaker than this (strength decayed to now) are not "
                                  "followed or drawn.")
    limit = int(row[3].number_input("Max nodes", 2, MAX_NODES, 200, 10, key="graph_limit",
                                    help="Above the cap the nearest, most strongly joined "
                                         "memories are kept; the page says how many were "
                                         "left out."))
    row = st.columns([1.5, 1.5, 3])
    since = row[0].date_input("Created since", value=None, key="graph_since",
                              format="YYYY-MM-DD")
    until = row[1].date_input("Created until", value=None, key="graph_until",
                              format="YYYY-MM-DD")
    inactive = row[2].toggle("Include archived and superseded memories", False,
                             key="graph_inactive")
    if not chosen:
        st.info("Pick at least one relation to follow.")
        return None
    if since is not None and until is not None and since > until:
        st.info("The time window is empty: *Created since* is after *Created until*.")
        return None
    relations = None if set(chosen) == set(RELATIONS) else tuple(chosen)
    return View(focus, int(hops), relations, float(strength),
                _moment(since if isinstance(since, date) else None, end=False),
                _moment(until if isinstance(until, date) else None, end=True),
                bool(inactive), limit)
