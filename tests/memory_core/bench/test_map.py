"""`memlens bench map`: every figure printed with its target and ratio, stages split out of
the progress marks, the figures of the other half of issue 14 reported as not run when this
install lacks it, a machine's first map on its own line without a target. Never timings.
The end-to-end run starts fresh Pythons that load umap-learn, so it is slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.bench.map import (
    CACHED_TARGET_S,
    COLD_TARGET_S,
    NEEDS_CLUSTERS,
    MapBench,
    _stages,
    time_engines,
)
from memory_core.store import MemoryStore
from tests.conftest import run_cli


def _bench(**changes: object) -> MapBench:
    figures: dict[str, object] = {
        "memories": 1000, "active": 950, "dimension": 384, "write_s": 1.0, "cold_s": 45.0,
        "cold_cpu_s": 40.0,
        "cold_stages": {"loading vectors": 0.5, "fitting": 40.0}, "entry_mb": 3.2,
        "cached_s": 0.5, "load": (1.0, 2.0, 3.0)}
    return MapBench(**{**figures, **changes})  # type: ignore[arg-type]


def test_stages_are_the_gaps_between_progress_marks() -> None:
    marks = {"reading the cached map": 0.0, "loading vectors": 0.1,
             "compiling UMAP (first use, ~20 s)": 1.0, "fitting": 31.0,
             "saving the map to the cache": 71.0, "done": 72.5}
    assert _stages(marks, 72.5) == pytest.approx({
        "loading vectors": 0.9, "compiling UMAP (first use, ~20 s)": 30.0, "fitting": 40.0,
        "saving the map to the cache": 1.5})


def test_every_figure_has_its_target_and_ratio() -> None:
    bench = _bench(clusters_s=5.0, clusters=12, duplicates_s=20.0, duplicate_pairs=3,
                   sample=100, sampled_s=4.0)
    assert bench.ratios() == {"cold": 45.0 / COLD_TARGET_S, "cached": 0.5 / CACHED_TARGET_S,
                              "clusters": 0.5, "duplicates": 2.0}
    lines = bench.lines()
    for label, verdict in (("map cold", "PASS"), ("map cached", "PASS"),
                           ("HDBSCAN clusters", "PASS"), ("near-duplicates", "FAIL")):
        (line,) = [x for x in lines if x.startswith(label)]
        assert "target <=" in line and "ratio" in line and verdict in line, line
    assert any(x.startswith("map fitted on 100, rest placed") for x in lines)
    assert "40.0 s of CPU" in lines[1]
    assert "load average 1.0/2.0/3.0" in lines[0]
    figures = bench.to_dict()
    assert figures["within_target"] == {"cold": True, "cached": True, "clusters": True,
                                        "duplicates": False}


def test_a_machines_first_map_is_its_own_line_without_a_target() -> None:
    bench = _bench(first_s=130.0, first_cpu_s=95.0,
                   first_stages={"finding neighbours": 30.0,
                                 "compiling the map engine (once per machine)": 62.5,
                                 "fitting": 35.0})
    assert set(bench.ratios()) == {"cold", "cached"}  # no target, no ratio
    (line,) = [x for x in bench.lines() if x.startswith("first map on a new machine")]
    assert "130.00 s  (numba cache empty, no target)" in line
    assert "95.0 s of CPU; waiting for the compile 62.5 s" in line
    assert not any(x.startswith("first map") for x in _bench().lines())  # not run


def test_figures_this_install_cannot_compute_are_not_run() -> None:
    bench = _bench(missing=(NEEDS_CLUSTERS,))
    assert set(bench.ratios()) == {"cold", "cached"}
    (line,) = [x for x in bench.lines() if x.startswith("HDBSCAN clusters")]
    assert line.endswith(f"not run: {NEEDS_CLUSTERS}")
    assert set(bench.to_dict()["targets_s"]) == {"cold", "cached"}


def test_engines_time_the_clusters_and_the_near_duplicates(store: MemoryStore) -> None:
    import numpy as np
    import polars as pl

    from memory_core.model.records import Memory
    from memory_core.projection import near_duplicates

    store.add([Memory.new(f"memory {n} about topic {n % 3}") for n in range(12)])
    ids = sorted(store.ids())
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"id": ids, "x": rng.normal(size=len(ids)),
                          "y": rng.normal(size=len(ids)),
                          "content": ["lancedb vector index"] * len(ids)})
    out = time_engines(store, frame)
    assert out["missing"] == ()
    assert out["clusters_s"] > 0 and out["duplicates_s"] > 0
    assert out["clusters"] >= 0
    assert out["duplicate_pairs"] == near_duplicates(store, threshold=0.95).height


@pytest.mark.slow
def test_cli_prints_the_figures_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # nothing is embedded
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["bench", "map", "--n", "300", "--sample", "100",
                              "--no-first-map", "--json"], capsys)
    assert code == 0, err
    figures = json.loads(out)
    assert (figures["memories"], figures["sample"]) == (300, 100)
    assert 250 <= figures["active"] < 300  # ~95% active
    assert figures["ratios"]["cold"] == figures["cold_s"] / figures["targets_s"]["cold"]
    assert set(figures["cold_stages"]) >= {"loading vectors", "finding neighbours", "fitting",
                                           "saving the map to the cache"}
    assert figures["sampled_s"] > 0 and figures["entry_mb"] > 0
    assert figures["first_s"] is None  # --no-first-map


def test_a_bad_size_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["bench", "map", "--n", "2"], capsys)
    assert code == 1 and "Invalid value for '--n'" in err
