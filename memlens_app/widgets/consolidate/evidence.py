"""The "evidence changed" queue: reflections whose sources were corrected, archived, superseded
or purged since they were written, with what changed and their strength then and now; and the
same reasons as one line for the Graph page. Memory text is escaped or a table cell."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from memlens_app.widgets.agents.links import memory_links
from memlens_app.widgets.common.markup import cells, md
from memory_core import EvidenceChange, Memory

SHOWN = 200


def strength_change(change: EvidenceChange) -> str:
    """ "0.48 → 0.32", "— → 0.32" when the reflection recorded no strength."""
    then = "—" if change.strength_then is None else f"{change.strength_then:.2f}"
    return f"{then} → {change.strength_now:.2f}"


def what_changed(change: EvidenceChange) -> str:
    """The sources' changes as plain text: "archived: o1; corrected: o2, o3"."""
    by_kind: dict[str, list[str]] = {}
    for source_id, kind in change.changes:
        by_kind.setdefault(kind, []).append(source_id)
    return "; ".join(f"{kind}: {', '.join(ids)}" for kind, ids in by_kind.items())


def evidence_queue(changes: Sequence[EvidenceChange], known: Mapping[str, Memory]) -> None:
    """The queue as a table, and links from a picked reflection to Curate and Graph."""
    if not changes:
        st.success("No reflection's evidence changed: every source is as it was when its "
                   "reflection was written.")
        return
    st.caption(f"{len(changes)} reflection{'' if len(changes) == 1 else 's'} whose sources "
               f"changed since {'it was' if len(changes) == 1 else 'they were'} written: "
               f"review each (edit it, or archive it if the evidence is gone).")
    shown = list(changes[:SHOWN])
    rows = [{"reflection": c.reflection_id,
             "content": " ".join(known[c.reflection_id].content.split())[:120]
             if c.reflection_id in known else "",
             "what changed": what_changed(c), "strength then → now": strength_change(c)}
            for c in shown]
    st.dataframe(cells(rows), hide_index=True, key="consolidate_evidence",
                 column_config={"content": st.column_config.TextColumn(width="large"),
                                "what changed": st.column_config.TextColumn(width="medium")})
    if len(changes) > SHOWN:
        st.caption(f"The first {SHOWN} of {len(changes)} are listed.")
    memory_links([c.reflection_id for c in shown],
                 {i: m.content for i, m in known.items()}, key="consolidate_evidence")


def flag_line(change: EvidenceChange) -> str:
    """Why a reflection is flagged, as escaped Markdown for a warning."""
    return (f"**Evidence changed** since this reflection was written: {md(what_changed(change))}"
            f" · strength {md(strength_change(change))}")
