"""The Agents page's figure: what each agent did over time (recalls, remembers, cites,
corrections). Agent names come from agents: they go through `for_html`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_core.model.untrusted import for_html

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl


def activity_chart(frame: pl.DataFrame, *, title: str = "Agent activity over time"
                   ) -> go.Figure:
    """Stacked bars per time bucket, one series per agent and kind.

    `frame` has the columns at, actor, kind, count (`Activity.over_time`).
    """
    import plotly.graph_objects as go

    fig = go.Figure()
    if frame.height:
        for actor, kind in sorted({(a, k) for a, k in zip(frame["actor"].to_list(),
                                                          frame["kind"].to_list(),
                                                          strict=True)}):
            part = frame.filter((frame["actor"] == actor) & (frame["kind"] == kind))
            fig.add_trace(go.Bar(x=part["at"].to_list(), y=part["count"].to_list(),
                                 name=f"{for_html(actor)}: {kind}"))
    fig.update_layout(barmode="stack", title=title, height=360, yaxis_title="actions",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      legend={"font": {"size": 10}})
    return fig
