"""The impact preview of an accept: what the consolidation would do to retrieval (`impact`:
the store's queries run before and after on a scratch copy; the live store is only read),
its metrics with the paired test, and each query whose top k changes, memory by memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from memlens_app.widgets.common.markup import cells, md
from memlens_app.widgets.common.state import show_error
from memory_core import ImpactReport, MemlensError, MemoryStore, impact

if TYPE_CHECKING:
    from memlens_app.widgets.consolidate.actions import Accept

#: Session state: (the accept it measured, its report).
IMPACT = "consolidate_impact"
SHOWN_QUERIES = 50


def _moves(moved: Sequence[Any]) -> str:
    """Memories lost or gained by one query, each with why: "0d4c… (archived by the batch)"."""
    return "; ".join(f"{m.memory_id[:12]} ({m.why})" for m in moved)


def impact_view(report: ImpactReport) -> None:
    """The summary line, the metrics table and the queries whose results change."""
    st.markdown(f"**Impact on retrieval:** {md(report.summary())}")
    st.caption(md(f"{report.queries.describe()} · {report.stat_test} paired test"))
    for note in report.notes:
        st.caption(md(note))
    st.dataframe(cells(report.rows()), hide_index=True, key="consolidate_impact_metrics")
    if not report.changes:
        st.caption("No query's top results change.")
        return
    rows = [{"query": c.query, "lost": _moves(c.lost), "gained": _moves(c.gained),
             "reordered": len(c.moved)} for c in report.changes[:SHOWN_QUERIES]]
    st.dataframe(cells(rows), hide_index=True, key="consolidate_impact_queries")
    if len(report.changes) > SHOWN_QUERIES:
        st.caption(f"The first {SHOWN_QUERIES} of {len(report.changes)} changed queries.")


def impact_button(store: MemoryStore, accept: Accept) -> None:
    """A button that measures the accept's impact; its report, while the inputs still
    describe it (below the buttons, full width)."""
    if st.button("Impact on retrieval", key="consolidate_impact_button",
                 icon=":material/query_stats:", disabled=not accept.content,
                 help="Run the store's queries on a scratch copy with the reflection written "
                      "and compare recall, nDCG and MRR with the store as it is"):
        try:
            with st.spinner("Measuring the impact on a scratch copy…"):
                report = impact(store, "consolidate", list(accept.members), accept.content,
                                method=accept.method, candidate_id=accept.candidate_id,
                                archive_sources=accept.archive_sources)
        except MemlensError as exc:
            st.session_state.pop(IMPACT, None)
            show_error(exc)
            return
        st.session_state[IMPACT] = (accept, report)


def impact_result(accept: Accept) -> None:
    """The last impact report, if it measured this accept."""
    kept = st.session_state.get(IMPACT)
    if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == accept:
        impact_view(kept[1])
