"""What the Ranking Lab shows of a comparison: the metrics table with significance markers,
the per-query win/loss chart, the worst regressions, the tag breakdown, and one query's two
ranked lists side by side with relevant memories marked and every hit explained."""

from __future__ import annotations

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import cells, frame_cells, md
from memlens_app.widgets.common.result_cards import explanation
from memory_core import (
    Comparison,
    Hit,
    MemoryStore,
    metrics_bar,
    per_query_delta,
    tag_heatmap,
    visible,
    win_tie_loss_bar,
)


def metrics_table(cmp: Comparison) -> None:
    """One row per metric: both configs, the delta, the p-value and its marker, W/T/L."""
    a, b = cmp.names
    frame = cmp.summary.select(
        pl.col("metric"), pl.col("baseline").round(4).alias(a), pl.col("candidate").round(4)
        .alias(b), pl.col("delta").round(4), pl.col("p_value").round(4),
        pl.col("marker").alias("sig."), "wins", "ties", "losses")
    st.dataframe(frame, hide_index=True, key="lab_metrics")
    how = ("the two score lists as independent groups" if cmp.stat_test == "tukey"
           else "paired by query")
    st.caption(f"Δ = {b} − {a}. `*`: p < {cmp.alpha:g} ({cmp.stat_test} test, {how}). "
               f"Wins/ties/losses count queries from {b}'s side.")


def charts(cmp: Comparison) -> None:
    """Metric bars with intervals, per-query deltas, win/tie/loss, and tags."""
    left, right = st.columns(2)
    left.plotly_chart(metrics_bar([cmp.baseline, cmp.candidate]), key="lab_bar")
    right.plotly_chart(win_tie_loss_bar(cmp), key="lab_wtl")
    metric = st.selectbox("Per-query metric", list(cmp.metrics),
                          index=list(cmp.metrics).index(cmp.primary), key="lab_metric")
    st.plotly_chart(per_query_delta(cmp, metric=metric), key="lab_delta")
    worst = cmp.worst(10, metric)
    st.markdown(f"**Worst regressions on {metric}**")
    if worst.height:
        st.dataframe(frame_cells(worst.select("qid", "query", "baseline", "candidate", "delta")),
                     hide_index=True, key="lab_worst")
    else:
        st.caption("No query got worse.")
    if cmp.by_tag.height:
        st.plotly_chart(tag_heatmap(cmp), key="lab_tags_chart")


def _ranked_list(store: MemoryStore, hits: tuple[Hit, ...], relevant: dict[str, int],
                 side: str) -> None:
    if not hits:
        st.caption("Nothing retrieved.")
    for hit in hits:
        grade = relevant.get(hit.memory.id)
        mark = f"✅ grade {grade}" if grade else "·"
        with st.container(border=True):
            st.markdown(f"**#{hit.rank}** · `{hit.score:.4f}` · {mark}")
            st.text(visible(hit.memory.content[:300]))
            with st.expander("Why this rank"):
                explanation(hit, key=f"lab_{side}_")
    missed = [m for m in relevant if m not in {h.memory.id for h in hits}]
    if missed:
        found = store.get_many(missed)
        st.markdown(f"**Missed relevant ({len(missed)})**")
        st.dataframe(cells([{"grade": relevant[m], "memory": (found[m].content[:120]
                                                              if m in found
                                                              else "(not in this tenant)"),
                             "id": m} for m in missed]), hide_index=True,
                     key=f"lab_missed_{side}")


def query_inspector(store: MemoryStore, cmp: Comparison) -> None:
    """Pick a query (worst regression first) and see both ranked lists side by side."""
    order = cmp.per_query.filter(pl.col("metric") == cmp.primary)
    labels = {row["qid"]: visible(f"{row['qid']} (Δ {row['delta']:+.3f}) {row['query'][:70]}")
              for row in order.iter_rows(named=True)}
    qid = st.selectbox("Query", list(labels), format_func=labels.__getitem__,
                       key="lab_query")
    if qid is None:
        return
    query = next(q for q in cmp.baseline.queries if q.qid == qid)
    st.text(visible(query.query))
    st.caption(f"tags: {md(', '.join(query.tags)) or '—'} · filter: "
               f"{md(query.filter.to_dict() or 'none')} · {len(query.relevant)} relevant")
    relevant = dict(query.relevant)
    for column, result, side in zip(st.columns(2), (cmp.baseline, cmp.candidate), "AB",
                                    strict=True):
        with column:
            st.markdown(f"**{result.name}**")
            _ranked_list(store, result.run.hits.get(qid, ()), relevant, side)
