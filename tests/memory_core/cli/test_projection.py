"""`memlens map`: the layout written to parquet and CSV reads back with the same ids; bad
parameters are one line; hostile content is escaped on the terminal and whole in files.
UMAP is stood in (the layout itself is tests/memory_core/projection's), but for one run of
the real thing."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from memory_core.model.records import Memory
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli
from tests.memory_core.cli.test_terminal import terminal_controls
from tests.memory_core.projection.helpers import topic_memories, use_linear_map

HOSTILE = "react hook \x1b]0;pwned\x07 state\rOVERWRITE"


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """`memlens map` fits a linear stand-in instead of UMAP."""
    use_linear_map(monkeypatch)


@pytest.fixture
def uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """40 LanceDB and 40 React memories, one of them hostile; the CLI embeds with the
    fake embedder."""
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    store.add([*topic_memories(40), Memory.new(HOSTILE, "decision", id="hostile",
                                               project="react")])
    return store.uri


def ok(uri: str, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    code, out, err = run_cli(["--store", uri, "map", *argv], capsys)
    assert code == 0, err
    assert terminal_controls(out) == [] and terminal_controls(err) == []
    return out, err


def _ids(uri: str) -> list[str]:
    return sorted(m.id for m in MemoryStore.open(uri, embedder=FakeEmbedder()).list(
        limit=None))


@pytest.mark.usefixtures("stand_in")
@pytest.mark.parametrize("name", ["map.parquet", "map.csv", "MAP.CSV"])
def test_out_writes_a_file_that_reads_back_with_the_same_ids(
        uri: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    path = tmp_path / name
    _, err = ok(uri, capsys, "--out", str(path))
    frame = pl.read_csv(path) if path.suffix.lower() == ".csv" else pl.read_parquet(path)
    assert frame["id"].to_list() == _ids(uri)
    assert frame.columns == ["id", "x", "y", "memory_type", "project", "agent", "status",
                             "importance", "created_at", "content"]
    assert frame.filter(pl.col("id") == "hostile")["content"].item() == HOSTILE  # whole
    assert f"81 memories on the map (computed), 0 left out without a vector; wrote {path}" in err


@pytest.mark.usefixtures("stand_in")
def test_json_prints_every_point_and_a_second_run_reads_the_cache(
        uri: str, capsys: pytest.CaptureFixture[str]) -> None:
    first = json.loads(ok(uri, capsys, "--json", "--project", "react", "--dims", "3")[0])
    assert first["from_cache"] is False and first["rows"] == 41
    assert first["params"] == {"n_neighbors": 15, "min_dist": 0.1, "seed": 42, "dims": 3,
                               "sample": None}
    assert {p["project"] for p in first["points"]} == {"react"}
    assert {"x", "y", "z"} <= set(first["points"][0])
    second = json.loads(ok(uri, capsys, "--json", "--project", "react", "--dims", "3")[0])
    assert second["from_cache"] is True and second["points"] == first["points"]
    fresh = json.loads(ok(uri, capsys, "--json", "--project", "react", "--dims", "3",
                          "--no-cache")[0])
    assert fresh["from_cache"] is False


@pytest.mark.usefixtures("stand_in")
def test_printed_rows_escape_hostile_content(uri: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out, err = ok(uri, capsys, "--sample", "30")
    lines = out.splitlines()
    assert len(lines) == 81
    (line,) = [x for x in lines if x.startswith("hostile ")]
    # escaped, and cut at the carriage return as every listing cuts content at a line end
    assert line.endswith("react hook \\x1b]0;pwned\\x07 state")
    assert "note: fitted on a sample of 30 of 81 memories" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--n-neighbors", "1"], "Error: n_neighbors must be a whole number of at least 2, got 1"),
    (["--min-dist", "2"], "Error: min_dist must be a number from 0 to 1, got 2.0"),
    (["--dims", "4"], "Error: dims must be 2 or 3, got 4"),
    (["--seed", "-3"], "Error: seed must be a whole number from 0 to 4294967295, got -3"),
    (["--sample", "5"], "Error: sample must be a whole number of at least n_neighbors + 1"),
    (["--out", "map.txt"], "is neither a .parquet nor a .csv file"),
    (["--n-neighbors", "many"], "Error: Invalid value for '--n-neighbors'"),
])
def test_bad_params_are_one_line(uri: str, capsys: pytest.CaptureFixture[str],
                                 argv: list[str], message: str) -> None:
    code, out, err = run_cli(["--store", uri, "map", *argv], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_too_few_memories_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    import memory_core.store.memory_store as memory_store

    monkeypatch.setattr(memory_store, "load_embedder", lambda settings=None: FakeEmbedder())
    store = MemoryStore.open(str(tmp_path / "store"), embedder=FakeEmbedder())
    store.add(topic_memories(1))
    code, _, err = run_cli(["--store", store.uri, "map"], capsys)
    assert code == 1 and err == (
        "Error: a map needs at least 3 embedded memories, the filter selects 2; widen the "
        "filter, or embed pending memories with `memlens reembed`\n")


@pytest.mark.usefixtures("stand_in")
def test_clusters_add_a_cluster_and_its_label(uri: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "map.parquet"
    out, _ = ok(uri, capsys, "--clusters", "--out", str(path))
    frame = pl.read_parquet(path)
    assert frame.columns[-2:] == ["cluster", "cluster_label"]
    assert frame["id"].to_list() == _ids(uri)
    assert frame.schema["cluster"].is_integer()
    labels = dict(zip(frame["cluster"], frame["cluster_label"], strict=True))
    assert all((c == -1) == (label == "noise") for c, label in labels.items())
    assert out.splitlines()[0].split()[:3] == ["cluster", "size", "label"]  # the table
    printed = json.loads(ok(uri, capsys, "--clusters", "--json")[0])
    assert {"cluster", "cluster_label"} <= set(printed["points"][0])


def test_the_real_umap_writes_a_map(uri: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "map.parquet"
    ok(uri, capsys, "--out", str(path), "--seed", "3")
    first = pl.read_parquet(path)
    ok(uri, capsys, "--out", str(path), "--seed", "3", "--no-cache")
    assert pl.read_parquet(path).equals(first)
    assert first["id"].to_list() == _ids(uri)
