"""Figures of decay (docs/design/decay.md), shared by the Decay page and notebooks:
retrievability or composite curves (current parameters dashed, what-if solid), the
composite's distribution, age against composite, one memory's timeline, and a query's
ranks with decay off and on. No Streamlit here.

Memory content, types, projects and event details come from agents: plotly renders some HTML
in labels and hover text (links too) and reads `%{...}` in hover templates, so they go
through `for_html`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.model.untrusted import for_html

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

    from memory_core.decay.analysis.model import DecayImpact, Timeline

_MARGIN = {"l": 10, "r": 10, "t": 40, "b": 10}
THRESHOLD_COLOUR = "#d62728"
CLOCK_COLOUR = "#7f7f7f"
#: How each kind of timeline event is drawn: (marker symbol, colour).
EVENT_MARKS: dict[str, tuple[str, str]] = {
    "created": ("star", "#1f77b4"),
    "recall": ("circle", "#2ca02c"),
    "cite": ("diamond", "#9467bd"),
    "correct": ("x", "#d62728"),
    "edge": ("triangle-up", "#8c564b"),
    "status": ("square", "#ff7f0e"),
    "edit": ("pentagon", "#17becf"),
}
_OTHER_MARK = ("circle-open", "#7f7f7f")
#: Rank shift colours: moved up with decay, moved down, unchanged or in one ranking only.
SHIFT_COLOURS = {"up": "#2ca02c", "down": "#d62728", "same": "#9e9e9e"}


def palette(n: int) -> list[str]:
    """`n` distinct colours: plotly's ten, then the 26 of its Alphabet set."""
    import plotly.express as px

    colours = [*px.colors.qualitative.Plotly, *px.colors.qualitative.Alphabet]
    return [colours[i % len(colours)] for i in range(n)]


def short(text: str, width: int = 80) -> str:
    """`text` on one line, cut to `width` characters (for hover text and labels).

    >>> short("a  b\\nc", 4)
    'a b…'
    """
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _threshold_line(fig: go.Figure, threshold: float, *, vertical: bool = False) -> None:
    label = f"threshold {threshold:g}"
    if vertical:
        fig.add_vline(x=threshold, line={"color": THRESHOLD_COLOUR, "dash": "dot"},
                      annotation_text=label, annotation_position="top left")
    else:
        fig.add_hline(y=threshold, line={"color": THRESHOLD_COLOUR, "dash": "dot"},
                      annotation_text=label, annotation_position="bottom right")


def curves_chart(curves: pl.DataFrame, *, value: str = "retrievability",
                 baseline: pl.DataFrame | None = None, threshold: float | None = None,
                 title: str = "Retrievability over time", height: int = 420) -> go.Figure:
    """One line per `label` of `curves` (columns label, day, `value`): solid; the same
    labels of `baseline` (the current parameters) dashed in the same colour; the threshold
    as a dotted line. Clicking a legend entry hides both lines of a label."""
    import plotly.graph_objects as go

    labels = list(dict.fromkeys(curves["label"].to_list()))
    colours = dict(zip(labels, palette(len(labels)), strict=True))
    fig = go.Figure()
    for label in labels:
        name = for_html(label)
        if baseline is not None:
            part = baseline.filter(baseline["label"] == label)
            fig.add_trace(go.Scatter(
                x=part["day"].to_list(), y=part[value].to_list(), mode="lines",
                name=f"{name} (current)", legendgroup=name, showlegend=False,
                line={"color": colours[label], "dash": "dash", "width": 1.5},
                hovertemplate=f"{name} · current<br>day %{{x}} · %{{y:.3f}}<extra></extra>"))
        part = curves.filter(curves["label"] == label)
        fig.add_trace(go.Scatter(
            x=part["day"].to_list(), y=part[value].to_list(), mode="lines", name=name,
            legendgroup=name, line={"color": colours[label], "width": 2.5},
            hovertemplate=f"{name}<br>day %{{x}} · %{{y:.3f}}<extra></extra>"))
    if threshold is not None:
        _threshold_line(fig, threshold)
    fig.update_layout(title=title, height=height, margin=_MARGIN, xaxis_title="days since "
                      "last access", yaxis_title=value, legend={"font": {"size": 11}},
                      hovermode="closest")
    fig.update_yaxes(rangemode="tozero")
    return fig


def _groups(frame: pl.DataFrame, by: str) -> list[str]:
    return sorted(set(frame[by].to_list()), key=lambda v: (v is None, str(v)))


def composite_histogram(frame: pl.DataFrame, *, by: str = "memory_type",
                        threshold: float | None = None, bins: int = 40,
                        title: str = "Decay composite across the store",
                        height: int = 440) -> go.Figure:
    """Stacked histogram of `frame["composite"]` (a `decay_frame`), one colour per value
    of `by` (memory_type or importance), with the threshold as a dotted line."""
    import plotly.graph_objects as go

    fig = go.Figure()
    top = max([1.0, *frame["composite"].drop_nulls().to_list()])
    size = top / bins
    groups = _groups(frame, by) if frame.height else []
    for group, colour in zip(groups, palette(len(groups)), strict=True):
        part = frame.filter(frame[by].is_null() if group is None else frame[by] == group)
        name = for_html(group if group is not None else "(none)")
        fig.add_trace(go.Histogram(
            x=part["composite"].to_list(), name=name, marker_color=colour,
            xbins={"start": 0.0, "end": top + size, "size": size},
            hovertemplate=f"{name}<br>composite %{{x}}<br>%{{y}} memories<extra></extra>"))
    if threshold is not None:
        _threshold_line(fig, threshold, vertical=True)
    fig.update_layout(barmode="stack", title=title, height=height, margin=_MARGIN,
                      xaxis_title="composite (R × usage × anchor × citation)",
                      yaxis_title="memories", bargap=0.05,
                      legend={"font": {"size": 10}, "traceorder": "normal"})
    return fig


def age_scatter(frame: pl.DataFrame, *, by: str = "memory_type",
                threshold: float | None = None, title: str = "Age against composite",
                height: int = 440) -> go.Figure:
    """Each memory of `frame` (a `decay_frame`) as a point: days since its last access
    against its composite, one colour per value of `by`; WebGL (Scattergl) so thousands of
    points stay quick. Hovering shows the memory's type, tier, id and first 80 characters."""
    import plotly.graph_objects as go

    fig = go.Figure()
    groups = _groups(frame, by) if frame.height else []
    for group, colour in zip(groups, palette(len(groups)), strict=True):
        part = frame.filter(frame[by].is_null() if group is None else frame[by] == group)
        name = for_html(group if group is not None else "(none)")
        hover = [f"{for_html(r['memory_type'])} · {for_html(r['importance'])} · "
                 f"{for_html(short(r['id'], 40))}<br>{for_html(short(r['content']))}"
                 for r in part.select("memory_type", "importance", "id", "content")
                 .iter_rows(named=True)]
        fig.add_trace(go.Scattergl(
            x=part["days_since"].to_list(), y=part["composite"].to_list(), mode="markers",
            name=name, marker={"color": colour, "size": 6, "opacity": 0.7},
            hovertext=hover,
            hovertemplate="%{hovertext}<br>%{x:.0f} days since access · composite "
                          "%{y:.3f}<extra></extra>"))
    if threshold is not None:
        _threshold_line(fig, threshold)
    fig.update_layout(title=title, height=height, margin=_MARGIN,
                      xaxis_title="days since last access (or creation)",
                      yaxis_title="composite", legend={"font": {"size": 10}})
    return fig


def _at_values(curve: pl.DataFrame, times: Sequence[object], column: str) -> list[float]:
    """The curve's `column` at each of `times`, linearly interpolated (the curve is sampled
    daily and at every reset, so a recall lands on a sample)."""
    import numpy as np
    import polars as pl

    if curve.height == 0 or not times:
        return [0.0] * len(times)
    xs = curve["at"].dt.epoch("us").to_numpy().astype("float64")
    ys = curve[column].to_numpy().astype("float64")
    wanted = pl.Series(list(times)).dt.epoch("us").to_numpy().astype("float64")
    return [float(v) for v in np.interp(wanted, xs, ys)]


def timeline_chart(timeline: Timeline, *, threshold: float | None = None,
                   title: str = "Decay of this memory", height: int = 420) -> go.Figure:
    """One memory's composite (solid, dotted after the decay clock: no further access
    assumed) and retrievability (thin) over time, a marker for each event on the
    composite (recalls reset R), the decay clock and the threshold."""
    import plotly.graph_objects as go
    import polars as pl

    curve = timeline.curve
    fig = go.Figure()
    past = curve.filter(pl.col("at") <= timeline.as_of)
    ahead = curve.filter(pl.col("at") >= timeline.as_of)
    if curve.height:
        fig.add_trace(go.Scatter(
            x=curve["at"].to_list(), y=curve["retrievability"].to_list(), mode="lines",
            name="R (retrievability)", line={"color": "#aec7e8", "width": 1.5},
            hovertemplate="%{x|%Y-%m-%d}<br>R %{y:.3f}<extra></extra>"))
        fig.add_trace(go.Scatter(
            x=past["at"].to_list(), y=past["composite"].to_list(), mode="lines",
            name="composite", line={"color": "#1f77b4", "width": 2.5},
            hovertemplate="%{x|%Y-%m-%d}<br>composite %{y:.3f}<extra></extra>"))
        fig.add_trace(go.Scatter(
            x=ahead["at"].to_list(), y=ahead["composite"].to_list(), mode="lines",
            name="composite ahead (no further access)",
            line={"color": "#1f77b4", "width": 2, "dash": "dot"},
            hovertemplate="%{x|%Y-%m-%d}<br>composite %{y:.3f} (projected)<extra></extra>"))
    # "created" last, so edges written the same day do not hide its star
    kinds = sorted(dict.fromkeys(e.kind for e in timeline.events), key=lambda k: k == "created")
    for kind in kinds:
        events = [e for e in timeline.events if e.kind == kind]
        symbol, colour = EVENT_MARKS.get(kind, _OTHER_MARK)
        ys = _at_values(curve, [e.at for e in events], "composite")
        hover = [f"{for_html(kind)} · {e.at:%Y-%m-%d %H:%M}"
                 + (" · resets R" if e.resets else "")
                 + (f"<br>{for_html(short(e.detail, 100))}" if e.detail else "")
                 + (f"<br>by {for_html(short(e.actor, 40))}" if e.actor else "")
                 for e in events]
        fig.add_trace(go.Scatter(
            x=[e.at for e in events], y=ys, mode="markers", name=for_html(kind),
            marker={"symbol": symbol, "color": colour, "size": 11,
                    "line": {"width": 1, "color": "white"}},
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    fig.add_vline(x=timeline.as_of.timestamp() * 1000, line={"color": CLOCK_COLOUR,
                                                             "dash": "dash"},
                  annotation_text="decay clock", annotation_position="top right")
    if threshold is not None and not timeline.never_decays:
        _threshold_line(fig, threshold)
    fig.update_layout(title=title, height=height, margin=_MARGIN, yaxis_title="value",
                      legend={"font": {"size": 10}, "orientation": "h", "y": -0.15},
                      hovermode="closest")
    fig.update_yaxes(rangemode="tozero")
    return fig


def rank_shift_chart(impact: DecayImpact, *, title: str = "Rank without and with decay",
                     height: int | None = None) -> go.Figure:
    """A slope chart: each memory's rank with decay off (left) and on (right), joined by a
    line, green when decay moved it up, red when down; a memory in one ranking only is a
    single point. Labels on the right are the first 90 characters of its content."""
    import plotly.graph_objects as go

    fig = go.Figure()
    rows = impact.rows
    for row in rows:
        shift = row.shift
        key = "same" if not shift else ("up" if shift > 0 else "down")
        if row.rank_with is not None and row.rank_without is None:
            key = "up"  # decay brought it into the top
        elif row.rank_with is None:
            key = "down"  # decay pushed it out
        points = [(x, r) for x, r in ((0, row.rank_without), (1, row.rank_with))
                  if r is not None]
        hover = (f"{for_html(short(row.content, 80))}<br>off #{row.rank_without or '—'} → on "
                 f"#{row.rank_with or '—'} · main factor {for_html(row.main_factor)} · "
                 f"composite {row.composite:.3f}")
        label = for_html(short(row.content, 90))
        fig.add_trace(go.Scatter(
            x=[x for x, _ in points], y=[r for _, r in points], mode="lines+markers+text",
            line={"color": SHIFT_COLOURS[key], "width": 2},
            marker={"size": 9, "color": SHIFT_COLOURS[key]},
            text=["" if x == 0 else f"#{r} {label}" for x, r in points],
            textposition="middle right", textfont={"size": 11}, showlegend=False,
            hovertext=[hover] * len(points), hovertemplate="%{hovertext}<extra></extra>"))
    worst = max([r for row in rows for r in (row.rank_with, row.rank_without)
                 if r is not None], default=1)
    fig.update_layout(title=title, height=height or max(260, 32 * worst + 90),
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    # the labels need room on the right of the "decay on" column
    fig.update_xaxes(tickvals=[0, 1], ticktext=["decay off", "decay on"], range=[-0.1, 3.4],
                     showgrid=False, zeroline=False)
    fig.update_yaxes(title="rank", dtick=1, range=[worst + 0.5, 0.5], zeroline=False)
    return fig
