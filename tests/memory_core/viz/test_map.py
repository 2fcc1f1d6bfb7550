"""The map's figure: one point per memory whose customdata is its id, colours by field or on a
continuous scale, cluster labels at their centres, near-duplicate links, the query's star and
its hits; hover text escaped; a Streamlit selection read back as memory ids."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import polars as pl
import pytest

from memory_core.viz.map import (
    HIT_COLOUR,
    NOISE_COLOUR,
    hover_content,
    hover_text,
    map_figure,
    selected_ids,
    with_colour_columns,
)

IMG = "<img src=x onerror=alert(1)>"
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _layout() -> pl.DataFrame:
    """Five memories: three decisions, a fact, a lesson with hostile content."""
    return pl.DataFrame({
        "id": ["d1", "d2", "d3", "f1", "h1"],
        "x": [0.0, 1.0, 2.0, 10.0, 5.0], "y": [0.0, 0.5, 1.0, 10.0, 5.0],
        "memory_type": ["decision", "decision", "decision", "fact", "lesson"],
        "project": ["atlas", "atlas", "herd", "herd", None],
        "agent": ["a1", "a2", "a1", "a1", "a2"],
        "status": ["active"] * 5, "importance": ["normal", "high", "normal", "low", "normal"],
        "created_at": [NOW - timedelta(days=d) for d in (1, 10, 100, 30, 3)],
        "content": ["Use LanceDB", "Index vectors", "Rotate keys", "Postgres is the store",
                    f"{IMG} 100% %{{x}}\nsecond line"],
    })


@dataclass(frozen=True)
class Placed:
    query: str
    x: float
    y: float
    hit_ids: tuple[str, ...]


def _memory_traces(fig: Any) -> list[Any]:
    return [t for t in fig.data if t.mode == "markers" and t.customdata is not None]


def _colour_of(fig: Any) -> dict[str, str]:
    """Each memory's marker colour."""
    return {i: t.marker.color for t in _memory_traces(fig) for i in t.customdata}


def test_one_trace_per_type_largest_first_with_ids_as_customdata() -> None:
    fig = map_figure(_layout(), colour="memory_type")
    traces = _memory_traces(fig)
    assert [t.name for t in traces] == ["decision", "fact", "lesson"]
    assert [list(t.customdata) for t in traces] == [["d1", "d2", "d3"], ["f1"], ["h1"]]
    assert all(t.type == "scattergl" for t in fig.data)
    assert len({t.marker.color for t in traces}) == 3


def test_switching_the_colour_changes_the_marker_colours() -> None:
    frame = with_colour_columns(_layout(), as_of=NOW)
    by_type = map_figure(frame, colour="memory_type")
    by_project = map_figure(frame, colour="project")
    assert [t.name for t in _memory_traces(by_project)] == ["atlas", "herd", "(none)"]
    types, projects = _colour_of(by_type), _colour_of(by_project)
    assert types["d1"] == types["d3"] and projects["d1"] != projects["d3"]  # atlas, herd
    assert types["f1"] != types["d3"] and projects["f1"] == projects["d3"]
    by_age = map_figure(frame, colour="age_days")
    [trace] = _memory_traces(by_age)
    assert list(trace.marker.color) == [1.0, 10.0, 100.0, 30.0, 3.0]
    assert trace.marker.colorscale is not None and trace.marker.colorbar.title.text == "Age (days)"


def test_the_legend_lists_a_few_categories_not_many() -> None:
    few = map_figure(_layout(), colour="memory_type")
    assert all(t.showlegend is not False for t in _memory_traces(few))
    many = _layout().with_columns(pl.Series("agent", [f"agent-{i}" for i in range(5)]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memory_core.viz.map.LEGEND_MAX", 4)
        traces = _memory_traces(map_figure(many, colour="agent"))
    assert len(traces) == 5 and all(t.showlegend is False for t in traces)


def test_colour_columns_join_decay_and_clusters_by_id() -> None:
    decay = pl.DataFrame({"id": ["d1", "f1"], "composite": [0.9, 0.2]})
    clusters = pl.DataFrame({"id": ["d1", "d2"], "cluster": [0, 0],
                             "cluster_label": ["lancedb · index", "lancedb · index"]})
    frame = with_colour_columns(_layout(), as_of=NOW, decay=decay, clusters=clusters)
    assert frame["composite"].to_list() == [0.9, None, None, 0.2, None]
    assert frame["cluster"].to_list() == [0, 0, -1, -1, -1]
    assert frame["cluster_label"].to_list()[2] == "noise"
    [trace] = _memory_traces(map_figure(frame, colour="composite"))
    assert trace.marker.color[0] == 0.9 and trace.marker.color[3] == 0.2
    by_cluster = _memory_traces(map_figure(frame, colour="cluster"))
    assert [t.name for t in by_cluster] == ["0 · lancedb · index", "noise"]
    assert by_cluster[1].marker.color == NOISE_COLOUR  # noise last, grey


def test_consolidation_colours_candidates_orange_on_top_and_listed_first() -> None:
    overlay = {"d1": "candidate", "d2": "candidate", "f1": "consolidated", "h1": "neither"}
    frame = with_colour_columns(_layout(), as_of=NOW, consolidation=overlay)
    assert frame["consolidation"].to_list() == ["candidate", "candidate", "neither",
                                                "consolidated", "neither"]  # d3: missing
    traces = _memory_traces(map_figure(frame, colour="consolidation"))
    # drawn neither, consolidated, candidate: the candidates on top of the rest
    assert [t.name for t in traces] == ["neither", "consolidated", "candidate"]
    assert [t.legendrank for t in traces] == [2, 1, 0]  # the legend lists candidates first
    colours = _colour_of(map_figure(frame, colour="consolidation"))
    assert colours["d1"] == "#ff7f0e" and colours["f1"] == "#2ca02c"
    assert colours["h1"] == colours["d3"] == NOISE_COLOUR
    assert traces[0].marker.opacity < traces[2].marker.opacity  # neither fades


def test_unknown_or_missing_colour_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of memory_type, project"):
        map_figure(_layout(), colour="mood")
    with pytest.raises(ValueError, match="no 'cluster' column"):
        map_figure(_layout(), colour="cluster")


def test_hover_shows_type_day_and_escaped_content_with_line_breaks() -> None:
    hover = hover_text(_layout())
    assert hover[0].startswith("decision · 2026-05-31 · atlas · d1<br>Use LanceDB")
    assert hover[4] == ("lesson · 2026-05-29 · (no project) · h1<br>"
                        "&lt;img src=x onerror=alert(1)&gt; 100&#37; &#37;{x}<br>second line")
    spec = map_figure(_layout()).to_json()
    assert "<img" not in json.loads(spec).__repr__()
    assert "&lt;img src=x onerror=alert(1)&gt;" in json.loads(spec)["data"][2]["hovertext"][0]


def test_hover_content_keeps_the_first_150_characters() -> None:
    text = "word " * 60  # 300 characters
    shown = hover_content(text)
    assert shown.endswith("…") and shown.replace("<br>", " ").count("word") == 30
    assert hover_content("a & b") == "a &amp; b"
    assert hover_content("") == ""


def test_cluster_labels_are_drawn_at_centres_escaped_noise_without_one() -> None:
    labels = pl.DataFrame({"cluster": [-1, 0, 1], "label": ["noise", "lancedb · index", IMG],
                           "size": [4, 10, 3], "x": [9.0, 1.0, 5.0], "y": [9.0, 0.5, 5.0]})
    fig = map_figure(_layout(), labels=labels)
    texts = [(a.x, a.y, a.text) for a in fig.layout.annotations]
    assert texts == [(1.0, 0.5, "lancedb · index"),
                     (5.0, 5.0, "&lt;img src=x onerror=alert(1)&gt;")]
    assert len(map_figure(_layout(), labels=labels, label_top=1).layout.annotations) == 1


def test_a_label_that_would_cover_a_larger_clusters_label_is_left_out() -> None:
    labels = pl.DataFrame({"cluster": [0, 1, 2], "label": ["big one", "small one", "apart"],
                           "size": [10, 3, 2], "x": [1.0, 1.05, 9.0], "y": [1.0, 1.02, 9.0]})
    fig = map_figure(_layout(), labels=labels)
    assert [a.text for a in fig.layout.annotations] == ["big one", "apart"]


def test_near_duplicate_links_join_their_points() -> None:
    pairs = pl.DataFrame({"a": ["d1", "d2"], "b": ["d2", "gone"], "cosine": [0.97, 0.96]})
    fig = map_figure(_layout(), links=pairs)
    [links] = [t for t in fig.data if t.mode == "lines"]
    assert list(links.x) == [0.0, 1.0, None] and list(links.y) == [0.0, 0.5, None]
    assert links.name == "near-duplicates (1 pairs)"  # the pair with an end off the map: out


def test_query_star_and_its_hits_ringed_in_rank_order() -> None:
    placed = Placed("<b>where</b> do vectors live?", 0.5, 0.2, ("d2", "missing", "d1"))
    fig = map_figure(_layout(), query=placed)
    [star] = [t for t in fig.data if t.name == "query"]
    assert (star.x, star.y, star.marker.symbol) == ((0.5,), (0.2,), "star")
    assert star.hovertext[0] == "query: &lt;b&gt;where&lt;/b&gt; do vectors live?"
    [hits] = [t for t in fig.data if t.name and t.name.startswith("top 3 hits")]
    assert list(hits.customdata) == ["d2", "d1"] and list(hits.text) == ["1", "3"]
    assert hits.marker.color == HIT_COLOUR and hits.name == "top 3 hits (2 on the map)"


def test_selected_ids_reads_a_box_selection_across_traces() -> None:
    """As Streamlit hands it over: a box over two type traces and the hit ring (the same
    memory twice), and the query's star (no customdata)."""
    state = {"selection": {
        "points": [
            {"curve_number": 0, "point_number": 1, "point_index": 1, "x": 1.0, "y": 0.5,
             "customdata": "d2", "legendgroup": ""},
            {"curve_number": 0, "point_number": 0, "point_index": 0, "x": 0.0, "y": 0.0,
             "customdata": "d1"},
            {"curve_number": 4, "point_number": 0, "point_index": 0, "x": 1.0, "y": 0.5,
             "customdata": "d2"},
            {"curve_number": 5, "point_number": 0, "point_index": 0, "x": 0.5, "y": 0.2},
            {"curve_number": 2, "point_number": 0, "point_index": 0, "x": 5.0, "y": 5.0,
             "customdata": ["h1"]},
        ],
        "point_indices": [1, 0, 0, 0, 0],
        "box": [{"x": [-1, 6], "y": [-1, 6], "xref": "x", "yref": "y"}], "lasso": []}}
    assert selected_ids(state) == ["d2", "d1", "h1"]
    assert selected_ids(None) == []
    assert selected_ids({"selection": {"points": [], "point_indices": [], "box": [],
                                       "lasso": []}}) == []


def test_an_empty_layout_gives_an_empty_map() -> None:
    fig = map_figure(_layout().clear())
    assert fig.data == ()
