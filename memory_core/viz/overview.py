"""Figures of the Overview page: counts by a field, memories written over time.

Names on the figures (projects, agents, types) come from agents: plotly renders some HTML in
labels, so they go through `for_html`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from memory_core.model.untrusted import for_html

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl


def counts_bar(counts: Mapping[str, int], *, title: str, top: int = 20) -> go.Figure:
    """A horizontal bar chart of the `top` largest counts, largest on top."""
    import plotly.graph_objects as go

    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    labels = [for_html(k) for k, _ in reversed(items)]
    values = [v for _, v in reversed(items)]
    fig = go.Figure(go.Bar(x=values, y=labels, orientation="h", text=values,
                           textposition="outside", cliponaxis=False))
    fig.update_layout(title=title, height=max(220, 26 * len(items) + 80),
                      margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title="memories")
    return fig


def written_over_time(frame: pl.DataFrame, *, title: str = "Memories written per week"
                      ) -> go.Figure:
    """Stacked bars of memories written per period, coloured by memory type.

    `frame` has the columns period, memory_type, count (see `stats.memories_over_time`).
    """
    import plotly.graph_objects as go

    fig = go.Figure()
    if frame.height:
        for mtype in sorted(set(frame["memory_type"].to_list())):
            part = frame.filter(frame["memory_type"] == mtype)
            fig.add_trace(go.Bar(x=part["period"].to_list(), y=part["count"].to_list(),
                                 name=for_html(mtype)))
    fig.update_layout(barmode="stack", title=title, height=380, xaxis_title="week",
                      yaxis_title="memories", margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      legend={"font": {"size": 10}})
    return fig
