"""The Curate page's Impact button (beside Preview): what the chosen action would do to
retrieval, measured by `impact` on a scratch copy (the live store is only read), shown as
the metrics table with the paired test and the queries whose top k change, each lost,
gained or reordered memory with why. Every value is shown as table text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from memlens_app.widgets.common.markup import cells, md
from memlens_app.widgets.common.state import show_error
from memory_core import (
    ImpactReport,
    MemlensError,
    MemoryStore,
    impact,
    impact_queries,
    impact_steps,
)

if TYPE_CHECKING:
    from memlens_app.widgets.curate.inputs import Request

#: Session state: (the request it measured, its report).
IMPACT = "curate_impact"
SHOWN_QUERIES = 50


def measure(store: MemoryStore, request: Request) -> ImpactReport:
    """`impact` of the request's action, args and options, with a progress bar."""
    extra: dict[str, Any] = {"purge": True} if request.action == "purge" else {}
    name = "delete" if request.action == "purge" else request.action
    chosen = impact_queries(store)
    total = impact_steps(len(chosen.queries))
    bar = st.progress(0.0, text="Measuring the impact on a scratch copy…")
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        bar.progress(min(done / total, 1.0), text="Measuring the impact on a scratch copy…")

    try:
        return impact(store, name, *request.args, queries=chosen, progress=advance,
                      **dict(request.kwargs), **extra)
    finally:
        bar.empty()


def impact_button(store: MemoryStore, request: Request) -> None:
    """The Impact button; a click measures the request and keeps the report."""
    if not st.button("Impact", key="curate_impact_button", icon=":material/query_stats:",
                     help="Run the store's queries (its saved query set, else its recent "
                          "recalls) on a scratch copy with the action applied, and compare "
                          "recall, nDCG@10 and MRR with the store as it is. Nothing is "
                          "written."):
        return
    try:
        st.session_state[IMPACT] = (request, measure(store, request))
    except MemlensError as exc:
        st.session_state.pop(IMPACT, None)
        show_error(exc)


def _moves(sign: str, moved: Any) -> list[dict[str, Any]]:
    return [{"change": sign, "memory": m.memory_id,
             "rank": (f"#{m.before}" if m.after is None else f"#{m.after}" if m.before is None
                      else f"#{m.before} → #{m.after}"), "why": m.why} for m in moved]


def impact_result(request: Request) -> None:
    """The last impact report, while the inputs still describe what it measured."""
    kept = st.session_state.get(IMPACT)
    if not (isinstance(kept, tuple) and len(kept) == 2 and kept[0] == request):
        return
    report: ImpactReport = kept[1]
    st.markdown(f"**Impact on retrieval:** {md(report.summary())}")
    st.caption(md(f"{report.queries.describe()} · {report.stat_test} paired test, "
                  f"* p < {report.comparison.alpha:g} · nothing was written"))
    for note in report.notes:
        st.caption(md(note))
    st.dataframe(cells([{k: r[k] for k in ("metric", "before", "after", "delta", "p_value",
                                           "marker", "wins", "ties", "losses")}
                        for r in report.rows()]), hide_index=True, key="curate_impact_metrics")
    if not report.changes:
        st.caption("No query's top results change.")
        return
    for change in report.changes[:SHOWN_QUERIES]:
        ndcg = report.metrics[1]
        with st.expander(f"{md(change.qid)} · {ndcg} {change.deltas[ndcg]:+.3f} · "
                         f"{md(change.query[:90])}"):
            rows = (_moves("lost", change.lost) + _moves("gained", change.gained)
                    + _moves("moved", change.moved))
            st.dataframe(cells(rows), hide_index=True, key=f"curate_impact_{change.qid}")
    if len(report.changes) > SHOWN_QUERIES:
        st.caption(f"The first {SHOWN_QUERIES} of {len(report.changes)} changed queries.")
