"""The warm process: on a machine that has compiled nothing it compiles the map engine in
the background and says so, leaves the marker, and leaves every kernel a map and a query
placement need in memlens' numba cache, so a later process compiles nothing; started again
it does nothing."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memory_core.projection import engine, map_engine_state, start_map_warm, warm

#: A later process's map: fitted (2-D and 3-D) from exact neighbours, a few points placed.
LATER_MAP = """
import numpy as np
from memory_core.projection import reducer
from memory_core.projection.params import MapParams
vectors = np.random.default_rng(3).standard_normal((300, 24)).astype(np.float32)
for dims in (2, 3):
    model, _ = reducer.fit(vectors[:250], MapParams(dims=dims), 15,
                           reducer.exact_neighbours(vectors[:250], 15))
    reducer.place_batches(model, vectors[250:])
"""


def _kept(folder: Path) -> dict[str, float]:
    return {str(p.relative_to(folder)): p.stat().st_mtime for p in folder.rglob("*.nb*")}


def test_nothing_is_started_when_the_engine_is_ready_or_compiling(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(engine, "_loaded", threading.Event())
    numba_dir = engine.numba_cache_dir(tmp_path)
    engine.mark_started(tmp_path)  # another command started one a moment ago
    start_map_warm(tmp_path)
    assert not (numba_dir / warm.LOG).exists()
    (numba_dir / engine.STARTED).unlink()
    engine.marker_path(tmp_path).write_text("{}", encoding="utf-8")
    start_map_warm(tmp_path)
    assert not (numba_dir / warm.LOG).exists() and not (numba_dir / engine.STARTED).exists()


@pytest.mark.slow
def test_a_new_machine_compiles_once_in_the_background(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    numba_dir = tmp_path / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_dir))  # empty: nothing compiled here
    monkeypatch.setattr(engine, "_loaded", threading.Event())
    assert map_engine_state(tmp_path).state == "cold"
    start_map_warm(tmp_path)
    assert map_engine_state(tmp_path).state == "compiling"
    deadline = time.monotonic() + 900
    while (state := map_engine_state(tmp_path)).state != "ready":
        assert state.state == "compiling", (numba_dir / warm.LOG).read_text()
        assert time.monotonic() < deadline, "the engine did not compile in 15 minutes"
        time.sleep(1.0)
    assert engine.marker_path(tmp_path).exists()
    kept = _kept(numba_dir)
    names = {Path(name).name.split("-")[0] for name in kept}
    assert {"layouts._optimize_layout_euclidean_single_epoch", "umap_.smooth_knn_dist",
            "umap_.compute_membership_strengths"} <= names  # umap-learn's, not only pynndescent's

    later = subprocess.run([sys.executable, "-c", LATER_MAP], capture_output=True, text=True,
                           check=False)
    assert later.returncode == 0, later.stderr
    assert _kept(numba_dir) == kept  # loaded, nothing compiled (and stored) again

    start_map_warm(tmp_path)  # ready: nothing started
    assert map_engine_state(tmp_path).state == "ready"
