"""The Decay page's figures: one trace per group or label, current dashed against what-if
solid, events on the curve where they happened, rank shifts coloured, and memory text
escaped wherever plotly would read it as HTML or a hover variable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import polars as pl

from memory_core.decay.analysis.model import (
    DecayImpact,
    ImpactRow,
    Timeline,
    TimelineEvent,
)
from memory_core.viz.decay import (
    EVENT_MARKS,
    SHIFT_COLOURS,
    age_scatter,
    composite_histogram,
    curves_chart,
    rank_shift_chart,
    timeline_chart,
)

IMG = "<img src=x onerror=alert(1)>"
CLOCK = datetime(2026, 6, 1, tzinfo=UTC)


def _frame() -> pl.DataFrame:
    return pl.DataFrame({
        "id": ["a", "b", "c"], "content": [f"{IMG} 100% %{{x}}", "plain", "c"],
        "memory_type": ["decision", "fact", "decision"],
        "importance": ["normal", "critical", "normal"],
        "days_since": [10.0, 200.0, 40.0], "composite": [0.9, 0.3, 1.2],
    })


def test_curves_draw_the_what_if_solid_and_the_current_dashed_in_one_colour() -> None:
    def curve(label: str, scale: float) -> pl.DataFrame:
        return pl.DataFrame({"label": [label] * 3, "day": [0, 1, 2],
                             "retrievability": [1.0, 0.9 * scale, 0.8 * scale]})

    now = pl.concat([curve("decision", 1.0), curve(IMG, 1.0)])
    new = pl.concat([curve("decision", 0.5), curve(IMG, 0.5)])
    fig = curves_chart(new, baseline=now, threshold=0.5)
    dashed = [t for t in fig.data if t.line.dash == "dash"]
    solid = [t for t in fig.data if t.line.dash is None]
    assert len(dashed) == len(solid) == 2
    assert [t.name for t in solid] == ["decision", "&lt;img src=x onerror=alert(1)&gt;"]
    assert [t.line.color for t in dashed] == [t.line.color for t in solid]
    assert list(solid[0].y) == [1.0, 0.45, 0.4] and list(dashed[0].y) == [1.0, 0.9, 0.8]
    assert fig.layout.shapes[0].y0 == 0.5  # the threshold line
    assert len(curves_chart(new, threshold=None).data) == 2  # no baseline: solid only


def test_histogram_stacks_one_trace_per_type_or_tier() -> None:
    fig = composite_histogram(_frame(), by="memory_type", threshold=0.5)
    assert [t.name for t in fig.data] == ["decision", "fact"]
    assert list(fig.data[0].x) == [0.9, 1.2] and fig.layout.barmode == "stack"
    assert fig.layout.shapes[0].x0 == 0.5
    assert [t.name for t in composite_histogram(_frame(), by="importance").data] == [
        "critical", "normal"]
    empty = composite_histogram(_frame().clear())
    assert len(empty.data) == 0


def test_scatter_is_webgl_and_its_hover_is_escaped() -> None:
    fig = age_scatter(_frame(), threshold=0.5)
    assert {t.type for t in fig.data} == {"scattergl"}
    [decision] = [t for t in fig.data if t.name == "decision"]
    assert list(decision.x) == [10.0, 40.0] and list(decision.y) == [0.9, 1.2]
    hover = decision.hovertext[0]
    assert "<img" not in hover and "&lt;img src=x onerror=alert(1)&gt;" in hover
    assert "%{x}" not in hover and "&#37;{x}" in hover  # no hover-template variable


def test_timeline_marks_each_event_on_the_curve_and_the_clock() -> None:
    created = CLOCK - timedelta(days=20)
    recall = CLOCK - timedelta(days=10)
    times = [created + timedelta(days=d) for d in range(0, 41)]
    composite = [1.0 - 0.01 * d for d in range(0, 41)]
    curve = pl.DataFrame({"at": times, "day": [float(d) for d in range(41)],
                          "retrievability": composite, "composite": composite})
    events = (TimelineEvent(created, "created", "decision written"),
              TimelineEvent(recall, "recall", f"query {IMG}", actor="agent", resets=True),
              TimelineEvent(recall + timedelta(hours=12), "cite", "cited"))
    fig = timeline_chart(Timeline("m1", events, curve, CLOCK, False), threshold=0.5)
    marks = {t.name: t for t in fig.data if t.mode == "markers"}
    assert set(marks) == {"created", "recall", "cite"}
    assert marks["recall"].marker.symbol == EVENT_MARKS["recall"][0]
    assert list(marks["recall"].y) == [0.9]  # on the curve, 10 days in
    assert abs(marks["cite"].y[0] - 0.895) < 1e-9  # between two daily samples
    assert "&lt;img" in marks["recall"].hovertext[0] and "<img" not in marks["recall"].hovertext[0]
    ahead = [t for t in fig.data if t.name == "composite ahead (no further access)"][0]
    assert min(ahead.x) == CLOCK
    assert {s.type for s in fig.layout.shapes} == {"line"} and len(fig.layout.shapes) == 2
    never = timeline_chart(Timeline("m1", events[:1], curve, CLOCK, True), threshold=0.5)
    assert len(never.layout.shapes) == 1  # the clock only: no threshold for a constitutional


def test_rank_shifts_are_coloured_by_direction() -> None:
    rows = (ImpactRow("up", IMG, 1, 3, 0.1, 0.2, 1.2, "usage"),
            ImpactRow("same", "b", 2, 2, 0.1, 0.2, 1.0, "retrievability"),
            ImpactRow("new", "c", 3, None, 0.1, None, 1.3, "anchor"),
            ImpactRow("out", "d", None, 1, None, 0.3, 0.2, "retrievability"))
    fig = rank_shift_chart(DecayImpact("q", CLOCK, rows))
    colours = [t.line.color for t in fig.data]
    assert colours == [SHIFT_COLOURS["up"], SHIFT_COLOURS["same"], SHIFT_COLOURS["up"],
                       SHIFT_COLOURS["down"]]
    assert list(fig.data[0].x) == [0, 1] and list(fig.data[0].y) == [3, 1]
    assert list(fig.data[2].x) == [1] and list(fig.data[3].x) == [0]
    assert fig.data[0].text[1].startswith("#1 &lt;img")
    assert tuple(fig.layout.yaxis.range) == (3.5, 0.5)  # rank 1 on top
