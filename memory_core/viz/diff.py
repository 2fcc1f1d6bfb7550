"""Figures of the Export Diff page: changes broken down by a field (values through
`for_html`: plotly renders some HTML in labels)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_core.model.untrusted import for_html

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

#: One colour per kind of change, the same on every figure.
CHANGE_COLOURS = {"added": "#2ca02c", "removed": "#d62728", "changed": "#ff7f0e"}


def diff_breakdown_bar(frame: pl.DataFrame, *, title: str, top: int = 20) -> go.Figure:
    """Stacked horizontal bars of added / removed / changed records per value.

    `frame` has the columns value, added, removed, changed, largest first (see
    `DiffResult.breakdown`); the `top` values are shown, largest on top.
    """
    import plotly.graph_objects as go

    part = frame.head(top).reverse()
    labels = [for_html(v) for v in part["value"].to_list()]
    fig = go.Figure()
    for change, colour in CHANGE_COLOURS.items():
        values = part[change].to_list() if change in part.columns else [0] * len(labels)
        fig.add_trace(go.Bar(x=values, y=labels, orientation="h", name=change,
                             marker_color=colour))
    fig.update_layout(barmode="stack", title=title, height=max(220, 26 * len(labels) + 90),
                      margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis_title="records",
                      legend={"orientation": "h", "y": -0.15})
    return fig
