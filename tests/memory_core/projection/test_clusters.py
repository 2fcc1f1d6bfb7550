"""HDBSCAN clusters of a layout: two well-separated groups and scattered noise give two
labelled clusters and a noise row; the sparse candidate graph gives the exact tree."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from memory_core.model.errors import InvalidMapParamsError
from memory_core.projection import Clusters, cluster_layout
from memory_core.projection.clusters import default_min_cluster_size
from memory_core.projection.density import candidate_graph, hdbscan_labels

LANCEDB = ("LanceDB vector index rebuilt", "the LanceDB index needs more partitions",
           "vector index of LanceDB retrained")
REACT = ("React component state", "split the React component in two",
         "React hooks in every component")


def _disk(rng: np.random.Generator, centre: tuple[float, float], radius: float, n: int
          ) -> np.ndarray:
    """`n` points spread uniformly over a disk (no tails that would fall out as noise)."""
    angle = rng.uniform(0, 2 * np.pi, n)
    r = radius * np.sqrt(rng.uniform(0, 1, n))
    return np.c_[centre[0] + r * np.cos(angle), centre[1] + r * np.sin(angle)]


def _scatter(rng: np.random.Generator, n: int) -> np.ndarray:
    """`n` points on a wide ring around both disks: far from them and from each other."""
    angle = np.linspace(0, 2 * np.pi, n, endpoint=False) + rng.uniform(0, 0.05, n)
    return np.c_[5 + 40 * np.cos(angle), 5 + 40 * np.sin(angle)]


@pytest.fixture
def layout() -> pl.DataFrame:
    """120 LanceDB decisions/lessons in a disk at (0, 0), 80 React memories at (10, 10),
    20 scattered memories far away; ids say which group each is in."""
    rng = np.random.default_rng(7)
    groups = [("lance", _disk(rng, (0, 0), 1.0, 120), LANCEDB, "herd"),
              ("react", _disk(rng, (10, 10), 1.0, 80), REACT, "lumen"),
              ("noise", _scatter(rng, 20), ("misc note about weather",), None)]
    rows = []
    for name, points, texts, project in groups:
        for i, (x, y) in enumerate(points):
            kind = "lesson" if name == "lance" and i % 4 == 0 else "decision"
            rows.append({"id": f"{name}-{i:03d}", "x": x, "y": y,
                         "content": texts[i % len(texts)], "memory_type": kind,
                         "project": project if i % 10 else None})
    return pl.DataFrame(rows)


def test_two_groups_and_noise_give_two_labelled_clusters_and_a_noise_row(
        layout: pl.DataFrame) -> None:
    clusters = cluster_layout(layout, min_cluster_size=15)
    found = dict(zip(clusters.assignments["id"], clusters.assignments["cluster"], strict=True))
    assert {found[f"lance-{i:03d}"] for i in range(120)} == {0}  # the largest is 0
    assert {found[f"react-{i:03d}"] for i in range(80)} == {1}
    assert {found[f"noise-{i:03d}"] for i in range(20)} == {-1}
    table = clusters.to_frame()
    assert table.columns == ["cluster", "label", "size", "x", "y", "top_types",
                             "top_projects"]
    assert table.select("cluster", "label", "size", "top_types", "top_projects").rows() == [
        (0, "index · lancedb · vector", 120, "decision 90, lesson 30", "herd 108, (none) 12"),
        (1, "component · react · split", 80, "decision 80", "lumen 72, (none) 8"),
        (-1, "noise", 20, "decision 20", "(none) 20"),
    ]
    lance = layout.filter(pl.col("id").str.starts_with("lance"))
    assert table["x"][0] == pytest.approx(lance["x"].mean())  # the centre: the mean
    assert table["y"][0] == pytest.approx(lance["y"].mean())
    assert table["x"][2] is None and table["y"][2] is None  # noise has no centre


def test_assignments_follow_the_layout_and_carry_the_labels(layout: pl.DataFrame) -> None:
    clusters = cluster_layout(layout, min_cluster_size=15)
    assert clusters.assignments.columns == ["id", "cluster", "cluster_label"]
    assert clusters.assignments["id"].to_list() == layout["id"].to_list()
    labels = dict(clusters.table.select("cluster", "label").iter_rows())
    assert all(labels[c] == label for c, label in
               clusters.assignments.select("cluster", "cluster_label").iter_rows())
    assert clusters.assignments.schema["cluster"] == pl.Int64


def test_clusters_are_deterministic(layout: pl.DataFrame) -> None:
    first, second = cluster_layout(layout), cluster_layout(layout)
    assert first.assignments.equals(second.assignments) and first.table.equals(second.table)


def test_default_min_cluster_size_is_half_a_percent_at_least_ten(layout: pl.DataFrame
                                                                 ) -> None:
    assert [default_min_cluster_size(n) for n in (0, 1999, 2000, 2806, 50_000)] == [
        10, 10, 10, 14, 250]
    clusters = cluster_layout(layout)
    assert (clusters.min_cluster_size, clusters.min_samples) == (10, 10)
    assert cluster_layout(layout, min_cluster_size=40).min_samples == 10


def test_fewer_points_than_a_cluster_are_all_noise() -> None:
    layout = pl.DataFrame({"id": ["a", "b", "c"], "x": [0.0, 0.1, 0.2], "y": [0.0] * 3,
                           "content": ["lancedb index"] * 3})
    clusters = cluster_layout(layout)
    assert clusters.assignments["cluster_label"].to_list() == ["noise"] * 3
    assert clusters.table.rows() == [(-1, "noise", 3, None, None, "(none) 3", "(none) 3")]


def test_an_empty_layout_has_no_clusters() -> None:
    empty = pl.DataFrame(schema={"id": pl.String, "x": pl.Float64, "y": pl.Float64,
                                 "content": pl.String})
    clusters = cluster_layout(empty)
    assert isinstance(clusters, Clusters)
    assert clusters.assignments.height == 0 and clusters.table.height == 0
    assert clusters.table.columns[:3] == ["cluster", "label", "size"]


def test_a_cluster_without_words_is_called_by_its_number() -> None:
    rng = np.random.default_rng(3)
    points = np.r_[_disk(rng, (0, 0), 1, 30), _disk(rng, (9, 0), 1, 20)]
    layout = pl.DataFrame({"id": [str(i) for i in range(50)], "x": points[:, 0],
                           "y": points[:, 1],
                           "content": ["lancedb index"] * 30 + ["the and of"] * 20})
    assert cluster_layout(layout, min_cluster_size=10).table["label"].to_list() == [
        "index · lancedb", "cluster 1"]


def test_hostile_text_passes_through_the_frames_untouched() -> None:
    hostile = "<script>alert(1)</script> \x1b]52;c;ZXZpbA==\x07 lancedb index"
    layout = pl.DataFrame({"id": ["<b>x</b>", "y"], "x": [0.0, 1.0], "y": [0.0, 1.0],
                           "content": [hostile, hostile], "project": ["<i>p</i>", None]})
    clusters = cluster_layout(layout)
    assert clusters.assignments["id"].to_list() == ["<b>x</b>", "y"]
    assert clusters.table["top_projects"].to_list() == ["(none) 1, <i>p</i> 1"]


@pytest.mark.parametrize(("change", "message"), [
    ({"drop": "x"}, "no column 'x'"),
    ({"text_column": "why"}, "no column 'why'"),
    ({"min_cluster_size": 1}, "min_cluster_size must be a whole number >= 2, got 1"),
    ({"min_cluster_size": 2.5}, "got 2.5"),
    ({"nan": True}, "1 points whose x or y is missing or not finite"),
])
def test_bad_input_is_one_clear_error(layout: pl.DataFrame, change: dict[str, object],
                                      message: str) -> None:
    if "drop" in change:
        layout = layout.drop(str(change.pop("drop")))
    if change.pop("nan", False):
        layout = layout.with_columns(
            pl.when(pl.col("id") == "lance-000").then(None).otherwise(pl.col("y")).alias("y"))
    with pytest.raises(InvalidMapParamsError, match=message):
        cluster_layout(layout, **change)  # type: ignore[arg-type]


# -- the sparse candidate graph -----------------------------------------------------------

def _mst_weight(graph: np.ndarray) -> float:
    """The weight of a minimum spanning tree of `graph` (zeros are no edges). Sparse input:
    scipy's dense path also drops values near zero, such as the duplicates' floor."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    return float(minimum_spanning_tree(csr_matrix(graph)).sum())


def _mutual_reachability(distances: np.ndarray, min_samples: int) -> np.ndarray:
    """max(core(a), core(b), d(a, b)), core(p) the distance to p's `min_samples`-th
    nearest point counting p itself (scikit-learn's dense definition)."""
    core = np.sort(distances, axis=1)[:, min_samples - 1]
    return np.maximum(distances, np.maximum(core[:, None], core[None, :]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("min_samples", [2, 5, 10])
def test_the_candidate_graph_holds_a_minimum_spanning_tree_of_every_pair(
        seed: int, min_samples: int) -> None:
    rng = np.random.default_rng(seed)
    points = np.r_[rng.normal((0, 0), 0.5, (150, 2)), rng.normal((4, 1), 1.5, (150, 2)),
                   rng.uniform(-6, 10, (100, 2)), np.zeros((5, 2))]  # duplicates too
    exact = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    # a zero is no edge: duplicates get a floor far below any other distance, as in the graph
    exact = np.maximum(exact, 1e-12)
    full = _mutual_reachability(exact, min_samples)
    np.fill_diagonal(full, 0)
    sparse = candidate_graph(points, 2 * min_samples).tocoo()
    core = np.sort(exact, axis=1)[:, min_samples - 1]
    weights = np.maximum(sparse.data, np.maximum(core[sparse.row], core[sparse.col]))
    from scipy.sparse import coo_matrix

    restricted = coo_matrix((weights, (sparse.row, sparse.col)), shape=sparse.shape)
    assert _mst_weight(restricted.toarray()) == pytest.approx(_mst_weight(full), abs=1e-6)


def test_hdbscan_on_the_candidate_graph_matches_scikit_learns_dense_run() -> None:
    from sklearn.cluster import HDBSCAN

    rng = np.random.default_rng(11)
    points = np.r_[_disk(rng, (0, 0), 1, 100), _disk(rng, (5, 0), 2, 100),
                   _disk(rng, (0, 6), 0.5, 60)]
    dense = HDBSCAN(min_cluster_size=20, min_samples=10, copy=True).fit_predict(points)
    ours = hdbscan_labels(points, min_cluster_size=20, min_samples=10)
    assert sorted(np.unique(ours, return_counts=True)[1]) == sorted(
        np.unique(dense, return_counts=True)[1])
    assert (ours == dense).mean() > 0.98  # points at equal distances may go either way
