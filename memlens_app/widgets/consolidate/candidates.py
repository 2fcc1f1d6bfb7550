"""The Consolidate tab's candidates: a table sorted by strength (one row picked), and the picked
candidate's members, each with a link to the Graph page. Every stored value is escaped
(`md`, `badges`) or goes into a table cell (`cells`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import streamlit as st

from memlens_app.widgets.common.markup import badges, cells, md
from memlens_app.widgets.curate.report import snippet
from memlens_app.widgets.graph.link import graph_button
from memory_core import Candidate, Memory

TABLE = "consolidate_table"
SHOWN_MEMBERS = 20


def by_strength(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Strongest first; ties by cohesion, then by more members, then by id (stable)."""
    return sorted(candidates, key=lambda c: (-c.strength, -c.cohesion, -len(c.members), c.id))


def span(start: datetime, end: datetime) -> str:
    """The members' time span: "2026-08-01 → 2026-08-04 (3 d)", one day as one date."""
    first, last = start.date().isoformat(), end.date().isoformat()
    if first == last:
        return first
    return f"{first} → {last} ({(end - start).days} d)"


def candidate_rows(candidates: Sequence[Candidate]) -> list[dict[str, object]]:
    """One table row per candidate, in the order given."""
    return [{"rank": n, "strength": round(c.strength, 3), "cohesion": round(c.cohesion, 3),
             "members": len(c.members), "span": span(c.start, c.end),
             "agents": ", ".join(c.agents), "projects": ", ".join(c.projects),
             "terms": ", ".join(c.terms), "draft": snippet_text(c.draft)}
            for n, c in enumerate(candidates, 1)]


def snippet_text(text: str, width: int = 80) -> str:
    """The first line of `text`, cut to `width` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def pick_candidate(candidates: Sequence[Candidate]) -> Candidate | None:
    """The candidates as a table (sorted by strength); the row picked (the first until one
    is), or None when there are none."""
    if not candidates:
        return None
    event = st.dataframe(
        cells(candidate_rows(candidates)), hide_index=True, key=TABLE, on_select="rerun",
        selection_mode="single-row",
        column_config={"rank": st.column_config.NumberColumn("#", width=40),
                       "strength": st.column_config.ProgressColumn(
                           "strength", min_value=0.0, max_value=1.0, format="%.2f",
                           help="cohesion × n / (n + 2) for n members"),
                       "draft": st.column_config.TextColumn("draft", width="large")})
    rows = list(event.selection.rows) if event is not None else []
    index = rows[0] if rows and 0 <= rows[0] < len(candidates) else 0
    return candidates[index]


def candidate_heading(candidate: Candidate, rank: int) -> None:
    """A line of the candidate's figures and its names (agents, projects, terms)."""
    st.markdown(f"**Candidate {rank}** · strength **{candidate.strength:.2f}** · cohesion "
                f"{candidate.cohesion:.2f} · {len(candidate.members)} members · "
                f"{md(span(candidate.start, candidate.end))}")
    names = [("violet", a) for a in candidate.agents] + [("blue", p) for p in
                                                        candidate.projects]
    if names:
        st.markdown(badges(names))
    if candidate.terms:
        st.caption("Distinctive terms: " + ", ".join(md(t) for t in candidate.terms))


def members_view(candidate: Candidate, known: Mapping[str, Memory]) -> None:
    """Each member (most central first): its type, agent, day and first line, and a button
    that opens it in the Graph page."""
    members = candidate.members[:SHOWN_MEMBERS]
    for n, memory_id in enumerate(members, 1):
        memory = known.get(memory_id)
        text, button = st.columns([9, 1], vertical_alignment="center")
        if memory is None:
            text.markdown(f"{n}. {md(memory_id)} (no longer in the store)")
            continue
        marks = [("gray", memory.memory_type), ("violet", memory.agent or "")]
        marks += [("red", memory.status)] if memory.status != "active" else []
        text.markdown(f"{n}. {badges(marks)} {md(memory.created_at.date().isoformat())} "
                      f"{md(snippet(memory, 140))}")
        with button:
            graph_button(memory_id, key=f"consolidate_graph_{candidate.id}_{n}")
    if len(candidate.members) > SHOWN_MEMBERS:
        st.caption(f"…and {len(candidate.members) - SHOWN_MEMBERS} more members.")
