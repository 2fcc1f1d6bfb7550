"""Ranking impact: a query ranked with the decay rerank on and off (the same config
otherwise), side by side, each memory's rank shift and the factor that moved it most."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import streamlit as st

from memlens_app.widgets.common.markup import frame_cells
from memlens_app.widgets.common.ranking_knobs import preset_picker
from memlens_app.widgets.decay.controls import Controls
from memlens_app.widgets.decay.data import clipped
from memory_core import PRESETS, DecayImpact, DecayParams, RankingConfig, rank_shift_chart

QUERY_KEY, PRESET_KEY, LIMIT_KEY = "decay_query", "decay_preset", "decay_limit"
CONTENT_CHARS = 90


def impact_inputs(params: DecayParams) -> tuple[str, RankingConfig, int]:
    """The query, the config (a preset whose decay parameters are the page's what-if ones)
    and how many results to compare."""
    query_col, preset_col, limit_col = st.columns([4, 2, 1], vertical_alignment="bottom")
    query = query_col.text_input("Query", key=QUERY_KEY,
                                 placeholder="e.g. how do we cache sessions?")
    with preset_col:
        name = preset_picker("Ranking preset", key=PRESET_KEY, default="full")
    limit = int(limit_col.number_input("Top", 3, 50, 10, key=LIMIT_KEY))
    return query.strip(), replace(PRESETS[name], decay=params), limit


def arrow(shift: int | None, with_rank: int | None, without_rank: int | None) -> str:
    """A rank shift as an arrow: "▲ 3" (decay moved it up), "▼ 2", "=", "new" (only in the
    ranking with decay), "out" (only without).

    >>> [arrow(3, 1, 4), arrow(-2, 5, 3), arrow(0, 2, 2), arrow(None, 4, None)]
    ['▲ 3', '▼ 2', '=', 'new']
    """
    if shift is None:
        return "new" if without_rank is None else "out"
    if shift == 0:
        return "="
    return f"▲ {shift}" if shift > 0 else f"▼ {-shift}"


def _colour(value: str) -> str:
    if value.startswith("▲") or value == "new":
        return "color: #2ca02c; font-weight: 600"
    if value.startswith("▼") or value == "out":
        return "color: #d62728; font-weight: 600"
    return "color: #9e9e9e"


def impact_table(impact: DecayImpact) -> None:
    """One row a memory, in its rank with decay; the shift coloured."""
    frame = impact.to_frame()
    table = frame_cells(frame.select(
        pl.col("rank_without").alias("without decay"),
        pl.col("rank_with").alias("with decay"),
        pl.Series("shift", [arrow(r.shift, r.rank_with, r.rank_without) for r in impact.rows],
                  dtype=pl.String),
        pl.col("main_factor").alias("main factor"),
        pl.col("composite").round(3),
        clipped("content", CONTENT_CHARS),
        pl.col("score_without").round(4).alias("score without"),
        pl.col("score_with").round(4).alias("score with"),
        "id"))
    ranks = {"without decay": "{:.0f}", "with decay": "{:.0f}", "composite": "{:.3f}",
             "score without": "{:.4f}", "score with": "{:.4f}"}
    styled = (table.to_pandas().style.map(_colour, subset=["shift"])
              .format(ranks, na_rep="—"))
    st.dataframe(styled, hide_index=True, key="decay_impact_table",
                 column_config={"content": st.column_config.TextColumn("content",
                                                                       width="large")})


def impact_view(impact: DecayImpact, ctl: Controls) -> None:
    """Counts of what moved, the slope chart and the table."""
    rows = impact.rows
    if not rows:
        st.info("The query found nothing in this tenant under the filter.")
        return
    ups = sum(1 for r in rows if (r.shift or 0) > 0)
    downs = sum(1 for r in rows if (r.shift or 0) < 0)
    entered = sum(1 for r in rows if r.rank_with is not None and r.rank_without is None)
    cols = st.columns(4)
    cols[0].metric("Moved up with decay", ups)
    cols[1].metric("Moved down", downs)
    cols[2].metric("New in the top", entered)
    cols[3].metric("Pushed out", sum(1 for r in rows if r.rank_with is None))
    st.plotly_chart(rank_shift_chart(impact), key="decay_rank_shift")
    impact_table(impact)
    st.caption(f"Decay at {ctl.as_of:%Y-%m-%d}"
               + (" with the what-if parameters" if ctl.changed else "")
               + ". Main factor: the decay factor farthest from 1 for that memory "
                 "(retrievability, usage, anchor, pattern or citation).")
