"""The Export Diff page's breakdown figure."""

from __future__ import annotations

import polars as pl

from memory_core.viz.diff import CHANGE_COLOURS, diff_breakdown_bar


def test_breakdown_bar_stacks_the_three_changes_largest_on_top() -> None:
    frame = pl.DataFrame({"value": ["decision", "fact", "(none)"], "added": [3, 0, 1],
                          "removed": [1, 2, 0], "changed": [0, 1, 0]})
    fig = diff_breakdown_bar(frame, title="By type", top=2)
    assert [t.name for t in fig.data] == list(CHANGE_COLOURS)
    assert list(fig.data[0].y) == ["fact", "decision"]  # the first row ends up on top
    assert list(fig.data[0].x) == [0, 3] and list(fig.data[1].x) == [2, 1]
    assert fig.layout.barmode == "stack" and fig.layout.title.text == "By type"


def test_empty_breakdown_is_an_empty_figure() -> None:
    empty = pl.DataFrame(schema={"value": pl.String, "added": pl.UInt32,
                                 "removed": pl.UInt32, "changed": pl.UInt32})
    fig = diff_breakdown_bar(empty, title="nothing")
    assert all(len(t.x) == 0 for t in fig.data)
