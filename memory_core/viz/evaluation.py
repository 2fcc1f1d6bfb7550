"""Figures of retrieval evaluation, shared by the Ranking Lab page and the notebooks.

`metrics_bar` compares configs metric by metric (95% intervals as error bars);
`per_query_delta` shows every query's change under a comparison, worst regression first;
`win_tie_loss_bar` counts them per metric; `tag_heatmap` breaks a result or a comparison down
by query tag. No Streamlit here.

Query text, query ids, tags and config names come from users: plotly renders some HTML in
labels and hover text (links too) and reads `%{...}` in hover templates, so they go through
`for_html`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.model.untrusted import for_html

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

    from memory_core.evaluation import Comparison, EvalResult

#: One colour per per-query outcome, the same on every figure.
OUTCOME_COLOURS = {"win": "#2ca02c", "tie": "#c7c7c7", "loss": "#d62728"}
_MARGIN = {"l": 10, "r": 10, "t": 40, "b": 10}


def _summaries(data: pl.DataFrame | Sequence[EvalResult]) -> pl.DataFrame:
    import polars as pl

    if isinstance(data, pl.DataFrame):
        return data
    return pl.concat([r.summary for r in data], how="vertical") if data else pl.DataFrame(
        schema={"config": pl.String, "metric": pl.String, "mean": pl.Float64,
                "ci_low": pl.Float64, "ci_high": pl.Float64})


def metrics_bar(data: pl.DataFrame | Sequence[EvalResult], *,
                metrics: Sequence[str] | None = None,
                title: str = "Retrieval quality by config") -> go.Figure:
    """Grouped bars: one group per metric, one bar per config, 95% intervals as error bars.

    `data` is a list of `EvalResult`s or their `summary` frames stacked (columns config,
    metric, mean, ci_low, ci_high); `metrics` picks and orders the metrics shown.
    """
    import plotly.graph_objects as go

    frame = _summaries(data)
    order = list(metrics) if metrics is not None else list(dict.fromkeys(
        frame["metric"].to_list()))
    fig = go.Figure()
    for config in dict.fromkeys(frame["config"].to_list()):
        rows = {r["metric"]: r for r in frame.filter(frame["config"] == config)
                .iter_rows(named=True)}
        shown = [m for m in order if m in rows]
        means = [rows[m]["mean"] for m in shown]
        up = [0.0 if rows[m]["ci_high"] is None else rows[m]["ci_high"] - rows[m]["mean"]
              for m in shown]
        down = [0.0 if rows[m]["ci_low"] is None else rows[m]["mean"] - rows[m]["ci_low"]
                for m in shown]
        fig.add_trace(go.Bar(x=shown, y=means, name=for_html(config),
                             error_y={"type": "data", "array": up, "arrayminus": down,
                                      "visible": True, "thickness": 1},
                             hovertemplate="%{x}: %{y:.3f}<extra>%{fullData.name}</extra>"))
    fig.update_layout(barmode="group", title=title, height=380, yaxis_title="mean score",
                      yaxis={"range": [0, 1.05]}, margin=_MARGIN,
                      legend={"orientation": "h", "y": -0.2})
    return fig


def per_query_delta(comparison: Comparison, *, metric: str | None = None,
                    top: int | None = None, title: str | None = None) -> go.Figure:
    """One bar per query: candidate minus baseline on `metric`, worst regression first.

    Bars are red for losses, grey for ties, green for wins; `top` keeps the first (worst)
    queries only. Hovering shows the query text.
    """
    import plotly.graph_objects as go

    metric = metric or comparison.primary
    part = comparison.per_query.filter(comparison.per_query["metric"] == metric)
    counts = {o: part.filter(part["outcome"] == o).height for o in OUTCOME_COLOURS}
    if top is not None:
        part = part.head(top)
    a, b = (for_html(name) for name in comparison.names)
    fig = go.Figure(go.Bar(
        x=[for_html(qid) for qid in part["qid"].to_list()], y=part["delta"].to_list(),
        marker_color=[OUTCOME_COLOURS[o] for o in part["outcome"].to_list()],
        customdata=[[for_html(q), x, y] for q, x, y in zip(part["query"].to_list(),
                                                 part["baseline"].to_list(),
                                                 part["candidate"].to_list(), strict=True)],
        hovertemplate=("%{x}: %{y:+.3f}<br>%{customdata[0]}<br>" + f"{a} " +
                       "%{customdata[1]:.3f} → " + f"{b} " + "%{customdata[2]:.3f}"
                       "<extra></extra>"),
    ))
    fig.update_layout(
        title=title or (f"{metric}: {b} vs {a} per query — {counts['win']} wins, "
                        f"{counts['tie']} ties, {counts['loss']} losses"),
        height=380, xaxis={"title": "query (worst regression first)", "type": "category",
                           "showticklabels": part.height <= 60},
        yaxis_title=f"Δ {metric}", margin=_MARGIN, showlegend=False,
    )
    return fig


def win_tie_loss_bar(comparison: Comparison, *, title: str | None = None) -> go.Figure:
    """Stacked horizontal bars: per metric, how many queries the candidate won, tied, lost."""
    import plotly.graph_objects as go

    frame = comparison.summary.reverse()  # the first metric ends up on top
    labels = [f"{m}{' *' if s else ''}" for m, s in zip(
        frame["metric"].to_list(), frame["significant"].to_list(), strict=True)]
    fig = go.Figure()
    for outcome, column in (("win", "wins"), ("tie", "ties"), ("loss", "losses")):
        fig.add_trace(go.Bar(x=frame[column].to_list(), y=labels, orientation="h",
                             name=outcome, marker_color=OUTCOME_COLOURS[outcome]))
    a, b = (for_html(name) for name in comparison.names)
    fig.update_layout(barmode="stack", height=max(220, 26 * len(labels) + 90),
                      title=title or f"{b} vs {a}: queries won, tied, lost (* p < "
                                     f"{comparison.alpha:g})",
                      xaxis_title="queries", margin=_MARGIN,
                      legend={"orientation": "h", "y": -0.15})
    return fig


def tag_heatmap(data: Comparison | EvalResult, *, metrics: Sequence[str] | None = None,
                title: str | None = None) -> go.Figure:
    """Tags by metrics: the delta of a comparison (red worse, blue better, white 0) or the
    mean score of one result. Rows are ordered by the primary metric, worst on top.
    """
    import plotly.graph_objects as go

    from memory_core.evaluation import Comparison

    is_cmp = isinstance(data, Comparison)
    value = "delta" if is_cmp else "mean"
    frame = data.by_tag
    shown = list(metrics) if metrics is not None else list(data.metrics)
    cells = {(r["tag"], r["metric"]): r for r in frame.iter_rows(named=True)
             if r["metric"] in shown}
    primary = data.primary if data.primary in shown else (shown[0] if shown else "")
    tags = sorted({t for t, _ in cells}, key=lambda t: (
        cells[(t, primary)][value] if (t, primary) in cells else 0.0, t))
    z = [[cells[(t, m)][value] if (t, m) in cells else None for m in shown] for t in tags]
    n = {t: next(cells[(t, m)]["n"] for m in shown if (t, m) in cells) for t in tags}
    colours = ({"colorscale": "RdBu", "zmid": 0.0} if is_cmp
               else {"colorscale": "Blues", "zmin": 0.0, "zmax": 1.0})
    fig = go.Figure(go.Heatmap(
        z=z, x=shown, y=[f"{for_html(t)} ({n[t]})" for t in tags], texttemplate="%{z:.2f}",
        hovertemplate="%{y} %{x}: %{z:.3f}<extra></extra>",
        colorbar={"title": {"text": "Δ" if is_cmp else "mean"}}, **colours))
    default = (f"{for_html(data.names[1])} vs {for_html(data.names[0])} by tag (Δ)"
               if isinstance(data, Comparison) else f"{for_html(data.name)} by tag")
    fig.update_layout(title=title or default, height=max(240, 22 * len(tags) + 110),
                      margin=_MARGIN, yaxis={"autorange": "reversed"},  # worst row on top
                      xaxis={"side": "top"})
    return fig
