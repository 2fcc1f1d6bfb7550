"""The embedding map's figure (docs/design/map.md), shared by the Map page and notebooks: one WebGL
point per memory of a projection's layout, coloured by a memory field, a cluster or a
continuous value (age, decay composite); cluster labels at their centres; near-duplicate
links; a query's star and its hits ringed; and `selected_ids`, which turns a Streamlit plotly
selection back into memory ids. No Streamlit here.

Memory content, names and cluster labels come from agents: plotly renders some HTML in hover
text, legends and annotations (links too) and reads `%{...}` in hover templates, so they go
through `for_html`; a memory's newlines become `<br>`, the one tag we write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from memory_core.model.untrusted import for_html
from memory_core.viz.decay import palette, short

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

#: Colour choices: frame column -> what the page calls it.
MAP_COLOURS: dict[str, str] = {
    "memory_type": "Type", "project": "Project", "agent": "Agent", "status": "Status",
    "importance": "Importance", "cluster": "Cluster", "age_days": "Age (days)",
    "composite": "Decay composite", "consolidation": "Consolidation",
}
#: Colour choices drawn on a continuous scale (one trace, a colour bar) with its scale.
CONTINUOUS: dict[str, str] = {"age_days": "Viridis", "composite": "RdYlGn"}
#: Colour choices whose categories have fixed colours, listed in the legend in this order and
#: drawn in the reverse (the first on top): candidates (still to review) stand out in orange,
#: consolidated memories in green, the rest faded grey.
FIXED: dict[str, dict[str, str]] = {
    "consolidation": {"candidate": "#ff7f0e", "consolidated": "#2ca02c", "neither": "#c7c7c7"},
}
#: Columns a layout frame has (`Projection.frame` of the map engine).
LAYOUT_COLUMNS = ("id", "x", "y", "memory_type", "project", "agent", "status", "importance",
                  "created_at", "content")
HOVER_CHARS = 150
_HOVER_WIDTH = 64
NOISE_COLOUR = "#c7c7c7"
HIT_COLOUR = "#d62728"
QUERY_COLOUR = "#111111"
LINK_COLOUR = "rgba(214, 39, 40, 0.55)"
#: Most categories listed in the legend: beyond, the map is wider without it (clusters are
#: labelled on the map and tabled; the page has a picker).
LEGEND_MAX = 24
#: The plot width label overlap is judged on (the page's map is about this wide).
LABEL_WIDTH_PX = 900
_MARGIN = {"l": 10, "r": 10, "t": 40, "b": 10}


class QueryMark(Protocol):
    """Where a query landed (the engine's `QueryPlacement` has these fields)."""

    @property
    def query(self) -> str: ...
    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...
    @property
    def hit_ids(self) -> tuple[str, ...]: ...


def _wrapped(line: str, width: int) -> list[str]:
    """`line` cut at spaces into pieces of at most `width` characters (a longer word cut
    where it must); a regex, as `textwrap` took most of a 50,000-point map's time.

    >>> _wrapped("aa bb cc dddddd", 5)
    ['aa bb', 'cc', 'ddddd', 'd']
    """
    return [piece.strip() for piece in
            re.findall(rf"\S.{{0,{width - 1}}}(?=\s|$)|\S{{{width}}}", line)]


def hover_content(text: str, limit: int = HOVER_CHARS, width: int = _HOVER_WIDTH) -> str:
    """The first `limit` characters of `text` for a hover box: escaped, its new lines as
    `<br>`, long lines wrapped at `width` so the box stays narrow.

    >>> hover_content("a <b>\\nc", 4)
    'a &lt;b…'
    >>> hover_content("one\\ntwo")
    'one<br>two'
    """
    clipped = text[:limit].rstrip()
    lines: list[str] = []
    for paragraph in clipped.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        lines += _wrapped(paragraph, width) or [""]
    # escaped before the ellipsis: `visible` is quickest on ASCII text
    shown = for_html("\n".join(lines)).replace("\n", "<br>")
    return shown + "…" if len(text) > limit else shown


def _cut(text: str, width: int) -> str:
    """`text` escaped for plotly, on one line, cut to `width` characters."""
    line = " ".join(text.split())
    return for_html(line) if len(line) <= width else for_html(line[:width - 1]) + "…"


def hover_text(frame: pl.DataFrame) -> list[str]:
    """One hover box per row of a layout frame: type, creation day, project and id on the
    first line, then the first 150 characters of the content."""
    import polars as pl

    rows = frame.select("id", "memory_type", "project", "content",
                        pl.col("created_at").dt.strftime("%Y-%m-%d").fill_null("—")
                        .alias("day"))
    return [f"{_cut(kind or '', 40)} · {day} · {_cut(project or '(no project)', 40)} · "
            f"{_cut(memory_id, 14)}<br>{hover_content(content or '')}"
            for memory_id, kind, project, content, day in rows.iter_rows()]


def with_colour_columns(frame: pl.DataFrame, *, as_of: datetime | None = None,
                        decay: pl.DataFrame | None = None,
                        clusters: pl.DataFrame | None = None,
                        consolidation: Mapping[str, str] | None = None) -> pl.DataFrame:
    """`frame` (a layout) with what the colour choices beyond its own fields need:
    `age_days` (days from creation to `as_of`, now when None), `composite` from `decay` (a
    `decay_frame`: id, composite; null where missing), `cluster`, `cluster_label` from
    `clusters` (the engine's `Clusters.assignments`; -1 and "noise" where missing) and
    `consolidation` from `consolidation` (`consolidation_overlay`: id -> consolidated,
    candidate or neither; "neither" where missing)."""
    import polars as pl

    now = as_of or datetime.now(UTC)
    out = frame.with_columns(
        ((pl.lit(now) - pl.col("created_at")).dt.total_seconds() / 86_400).alias("age_days"))
    if decay is not None:
        out = out.drop("composite", strict=False).join(
            decay.select("id", "composite"), on="id", how="left")
    if clusters is not None:
        out = (out.drop("cluster", "cluster_label", strict=False)
               .join(clusters.select("id", "cluster", "cluster_label"), on="id", how="left")
               .with_columns(pl.col("cluster").fill_null(-1),
                             pl.col("cluster_label").fill_null("noise")))
    if consolidation is not None:
        out = out.with_columns(pl.col("id").replace_strict(
            dict(consolidation), default="neither", return_dtype=pl.String)
            .alias("consolidation"))
    return out


def _marker_size(n: int) -> int:
    return 8 if n < 300 else 6 if n < 5_000 else 4


def _categories(frame: pl.DataFrame, by: str) -> list[tuple[Any, str, pl.DataFrame]]:
    """(value, legend name, rows) for each value of `by`: largest group first; clusters
    in their own order with noise last."""
    groups = []
    for value, part in frame.group_by(by, maintain_order=True):
        key = value[0]
        if by == "cluster":
            label = part["cluster_label"][0] if "cluster_label" in part.columns else ""
            name = "noise" if key == -1 else f"{key} · {short(str(label), 40)}"
        else:
            name = "(none)" if key is None or key == "" else short(str(key), 40)
        groups.append((key, for_html(name), part))
    if by == "cluster":
        return sorted(groups, key=lambda g: (g[0] == -1, g[0]))
    if by in FIXED:
        order = list(FIXED[by])
        return sorted(groups, key=lambda g: -order.index(g[0]) if g[0] in order else 1)
    return sorted(groups, key=lambda g: (-g[2].height, str(g[0])))


def _points(fig: go.Figure, frame: pl.DataFrame, by: str) -> None:
    """The memories: one trace per category (in the legend when there are at most
    `LEGEND_MAX`), or one with a colour bar when continuous."""
    import plotly.graph_objects as go

    size = _marker_size(frame.height)
    if by in CONTINUOUS:
        fig.add_trace(go.Scattergl(
            x=frame["x"].to_numpy(), y=frame["y"].to_numpy(), mode="markers",
            name=MAP_COLOURS[by], showlegend=False, customdata=frame["id"].to_list(),
            hovertext=hover_text(frame), hovertemplate=f"%{{hovertext}}<br>{MAP_COLOURS[by]} "
            "%{marker.color:.2f}<extra></extra>",
            marker={"color": frame[by].fill_null(float("nan")).to_list(), "size": size,
                    "opacity": 0.8, "colorscale": CONTINUOUS[by],
                    "colorbar": {"title": {"text": MAP_COLOURS[by]}, "thickness": 12}}))
        return
    groups = _categories(frame, by)
    fixed = FIXED.get(by)
    colours = ([fixed.get(str(value), NOISE_COLOUR) for value, _, _ in groups] if fixed
               else palette(len(groups)))
    legend = len(groups) <= LEGEND_MAX
    listed = list(fixed or ())  # the legend's order where it is not the drawing's
    for rank, ((value, name, part), colour) in enumerate(zip(groups, colours, strict=True)):
        noise = by == "cluster" and value == -1 or bool(fixed) and colour == NOISE_COLOUR
        fig.add_trace(go.Scattergl(
            x=part["x"].to_numpy(), y=part["y"].to_numpy(), mode="markers", name=name,
            showlegend=legend,
            legendrank=listed.index(value) if value in listed else 1000 + rank,
            customdata=part["id"].to_list(), hovertext=hover_text(part),
            hovertemplate="%{hovertext}<extra></extra>",
            marker={"color": NOISE_COLOUR if noise else colour, "size": size,
                    "opacity": 0.45 if noise else 0.8}))


def _overlaps(box: tuple[float, float, float, float],
              placed: list[tuple[float, float, float, float]]) -> bool:
    x0, y0, x1, y1 = box
    return any(x0 < b1 and b0 < x1 and y0 < c1 and c0 < y1 for b0, c0, b1, c1 in placed)


def _label_annotations(fig: go.Figure, frame: pl.DataFrame, labels: pl.DataFrame, *,
                       top: int, height: int) -> None:
    """The `top` largest clusters' labels at their centres (noise has none), largest
    first; a label that would cover one already drawn is left out (its cluster is still in
    the table and the legend). Overlap is judged on a plot about `LABEL_WIDTH_PX` wide."""
    rows = (labels.filter((labels["cluster"] != -1) & labels["x"].is_not_null())
            .sort("size", descending=True).head(top))
    if rows.is_empty():
        return
    xs, ys = frame["x"], frame["y"]
    x_span = max(float(xs.max()) - float(xs.min()), 1e-9)  # type: ignore[arg-type]
    y_span = max(float(ys.max()) - float(ys.min()), 1e-9)  # type: ignore[arg-type]
    plot_h = max(height - _MARGIN["t"] - _MARGIN["b"], 100)
    placed: list[tuple[float, float, float, float]] = []
    for row in rows.iter_rows(named=True):
        text = short(row["label"], 36)
        # the label's box in data units: ~7 px a character, 18 px a line
        half_w = len(text) * 7 / 2 / LABEL_WIDTH_PX * x_span
        half_h = 18 / 2 / plot_h * y_span
        box = (row["x"] - half_w, row["y"] - half_h, row["x"] + half_w, row["y"] + half_h)
        if _overlaps(box, placed):
            continue
        placed.append(box)
        fig.add_annotation(
            x=row["x"], y=row["y"], text=for_html(text), showarrow=False,
            font={"size": 11, "color": "#222", "weight": "bold"},
            bgcolor="rgba(255,255,255,0.72)", borderpad=2)


def _links(fig: go.Figure, frame: pl.DataFrame, pairs: pl.DataFrame) -> None:
    """Near-duplicate pairs (columns a, b) as line segments between their points; pairs
    with an end off the map are left out."""
    import plotly.graph_objects as go

    at = dict(zip(frame["id"].to_list(), zip(frame["x"].to_list(), frame["y"].to_list(),
                                             strict=True), strict=True))
    xs: list[float | None] = []
    ys: list[float | None] = []
    shown = 0
    for a, b in zip(pairs["a"].to_list(), pairs["b"].to_list(), strict=True):
        if a in at and b in at:
            xs += [at[a][0], at[b][0], None]
            ys += [at[a][1], at[b][1], None]
            shown += 1
    fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", hoverinfo="skip",
                               name=f"near-duplicates ({shown} pairs)",
                               line={"color": LINK_COLOUR, "width": 1.5}))


def _query(fig: go.Figure, frame: pl.DataFrame, query: QueryMark) -> None:
    """The query's star, and its hits on the map ringed, numbered by rank and joined to it
    by thin dotted lines."""
    import plotly.graph_objects as go
    import polars as pl

    ranks = {memory_id: rank for rank, memory_id in enumerate(query.hit_ids, 1)}
    hits = (frame.filter(pl.col("id").is_in(list(ranks)))
            .with_columns(pl.col("id").replace_strict(ranks, return_dtype=pl.Int64)
                          .alias("rank")).sort("rank"))
    if hits.height:
        xs: list[float | None] = []
        ys: list[float | None] = []
        for x, y in zip(hits["x"].to_list(), hits["y"].to_list(), strict=True):
            xs += [query.x, x, None]
            ys += [query.y, y, None]
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", hoverinfo="skip",
                                   showlegend=False, line={"color": HIT_COLOUR, "width": 1,
                                                           "dash": "dot"}))
        fig.add_trace(go.Scattergl(
            x=hits["x"].to_list(), y=hits["y"].to_list(), mode="markers+text",
            name=f"top {len(ranks)} hits ({hits.height} on the map)",
            customdata=hits["id"].to_list(), text=[str(r) for r in hits["rank"].to_list()],
            textposition="top right", textfont={"color": HIT_COLOUR, "size": 12},
            hovertext=[f"hit #{r}<br>{h}" for r, h in zip(hits["rank"].to_list(),
                                                           hover_text(hits), strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
            marker={"symbol": "circle-open", "size": 16, "color": HIT_COLOUR,
                    "line": {"width": 2.5, "color": HIT_COLOUR}}))
    fig.add_trace(go.Scattergl(
        x=[query.x], y=[query.y], mode="markers", name="query",
        hovertext=[f"query: {hover_content(query.query, 120)}"],
        hovertemplate="%{hovertext}<extra></extra>",
        marker={"symbol": "star", "size": 20, "color": "#ffd700",
                "line": {"width": 1.5, "color": QUERY_COLOUR}}))


def map_figure(frame: pl.DataFrame, *, colour: str = "memory_type",
               labels: pl.DataFrame | None = None, links: pl.DataFrame | None = None,
               query: QueryMark | None = None, label_top: int = 30,
               title: str | None = None, height: int = 680) -> go.Figure:
    """The map of a layout frame (columns `LAYOUT_COLUMNS`, plus `colour`'s column: see
    `with_colour_columns`), one point per memory whose `customdata` is its id.

    `labels`: a cluster table (cluster, label, size, x, y), the `label_top` largest drawn
    at their centres unless they would cover a larger one's; `links`: near-duplicate pairs
    (a, b) drawn as segments; `query`: a placed query, drawn as a star with its hits ringed
    and numbered by rank. Axes carry no meaning in a UMAP layout, so they are hidden, and
    the layout fills the plot.

    >>> import polars as pl
    >>> map_figure(pl.DataFrame(schema=dict.fromkeys(LAYOUT_COLUMNS, pl.String)), colour="x")
    Traceback (most recent call last):
    ...
    ValueError: cannot colour the map by 'x': choose one of memory_type, project, agent, \
status, importance, cluster, age_days, composite, consolidation
    """
    import plotly.graph_objects as go

    if colour not in MAP_COLOURS:
        raise ValueError(f"cannot colour the map by {colour!r}: choose one of "
                         f"{', '.join(MAP_COLOURS)}")
    if colour not in frame.columns:
        raise ValueError(f"the map frame has no {colour!r} column: add it with "
                         f"with_colour_columns (decay or clusters) before colouring by it")
    fig = go.Figure()
    if frame.height:
        _points(fig, frame, colour)
    if links is not None and links.height:
        _links(fig, frame, links)
    if query is not None:
        _query(fig, frame, query)
    if labels is not None and labels.height and frame.height:
        _label_annotations(fig, frame, labels, top=label_top, height=height)
    fig.update_layout(
        title=title, height=height, margin=_MARGIN, hovermode="closest", dragmode="lasso",
        plot_bgcolor="white",
        # below the plot, in rows: the map keeps the page's whole width
        legend={"font": {"size": 11}, "itemsizing": "constant", "orientation": "h",
                "x": 0, "y": -0.01, "yanchor": "top"},
        hoverlabel={"align": "left", "bgcolor": "rgba(255,255,255,0.96)", "bordercolor": "#888",
                    "font": {"size": 12, "color": "#1f1f1f"}})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def _point_id(point: Mapping[str, Any]) -> str | None:
    """The memory id of a selected point: its `customdata` (a string, or a one-item list
    when customdata was two-dimensional); None for points that are not memories."""
    data = point.get("customdata")
    if isinstance(data, list | tuple):
        data = data[0] if data else None
    return data if isinstance(data, str) and data else None


def selected_ids(selection_state: Mapping[str, Any] | None) -> list[str]:
    """The memory ids of a Streamlit plotly selection (`st.plotly_chart(on_select=...)`'s
    state: `{"selection": {"points": [...], "point_indices": [...], "box": [...],
    "lasso": [...]}}`, or its inner `selection`), in selection order, each once. Points
    without a memory id (the query's star, link segments) are skipped; a hit ringed on top
    of its memory counts once.

    >>> selected_ids({"selection": {"points": [{"customdata": "m1", "curve_number": 0},
    ...     {"customdata": ["m2"]}, {"customdata": "m1"}, {"point_index": 0}]}})
    ['m1', 'm2']
    """
    if not selection_state:
        return []
    selection = selection_state.get("selection", selection_state)
    points: Sequence[Mapping[str, Any]] = (selection or {}).get("points") or []
    ids = (_point_id(p) for p in points if isinstance(p, Mapping))
    return list(dict.fromkeys(i for i in ids if i is not None))
