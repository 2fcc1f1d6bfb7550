"""`memlens bench curate` on tiny stores: every figure and ratio printed, and the store left
as the steps say (archive undone, pairs merged, the purged memory gone). Never timings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.bench.curate import (
    ARCHIVE_PROJECT,
    MERGE_PROJECT,
    SINGLE_MERGES,
    run_curate_bench,
)
from memory_core.bench.curate_purge import purge_project
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, run_cli

FIGURES = ("archive_s", "undo_s", "merge_s", "purge_s", "compaction_s", "verify_s",
           "purge_without_verify_s")
RATIOS = ("archive", "undo", "merge", "purge", "purge_without_verify", "purge_1_files",
          "purge_5_files")


def test_bench_leaves_archive_undone_pairs_merged_and_the_purged_memory_gone(
        tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    result = run_curate_bench(2000, archive=200, pairs=5, purges=(20, 1), embedder=fake_embedder,
                              folder=tmp_path)
    assert (result.archived, result.restored, result.pairs) == (200, 200, 5)
    assert result.purge_verified
    store = MemoryStore.open(str(tmp_path / "store"), embedder=fake_embedder)
    archived = store.list(Filter(project=ARCHIVE_PROJECT, status=STATUSES))
    assert len(archived) == 200 and {m.status for m in archived} == {"active"}
    merged = sorted(store.list(Filter(project=MERGE_PROJECT, status=STATUSES)), key=lambda m: m.id)
    survivors = merged[::2]  # the bench merges the sorted ids two by two into the first
    # the batch's 5 pairs and the single merges after it
    assert [m.status for m in merged] == ["active", "superseded"] * (5 + SINGLE_MERGES)
    assert [m.metadata["merged_from"] for m in survivors] == [[m.id] for m in merged[1::2]]
    for size in (1, 20):
        assert store.list(Filter(project=purge_project(size), status=STATUSES)) == []
    assert store.count(Filter(status=STATUSES)) == 2000 - 21
    # smallest first, each with its parts
    assert [p.memories for p in result.purges] == [1, 20] and result.purge_verified
    assert all(0 < p.files_s < p.verify_s < p.purge_s and 0 < p.compaction_s < p.purge_s
               for p in result.purges)
    lines = result.lines()
    for label in ("archive 200 by filter", "undo of that archive (200)", "merge of 5 pairs",
                  "purge of 1 memory", "purge without verification"):
        (line,) = [x for x in lines if label in x]
        assert "target <=" in line and "ratio" in line and ("PASS" in line or "FAIL" in line)
    assert any("of which compaction" in x for x in lines)
    assert any("of which verification" in x for x in lines)
    (files,) = [x for x in lines if x.startswith("purge of 20")]
    (check,) = [x for x in lines[lines.index(files):] if "files check" in x][:1]
    ratio = result.purges[1].files_s / result.purges[1].compaction_s
    assert f"target <= 2 x compaction: {ratio:.2f} x" in check


def test_cli_prints_every_figure_with_its_ratio_as_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")  # no model: verification skips searches
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["bench", "curate", "--memories", "300", "--archive", "30",
                            "--pairs", "2", "--purges", "1,5", "--json"], capsys)
    figures = json.loads(out)
    assert code == 0 and (figures["memories"], figures["archived"], figures["restored"],
                          figures["pairs"]) == (300, 30, 30, 2)
    assert all(isinstance(figures[name], float) for name in FIGURES)
    assert set(figures["ratios"]) == set(figures["within_target"]) == set(RATIOS)
    assert figures["ratios"]["merge"] == figures["merge_s"] / figures["targets_s"]["merge"]
    assert figures["purge_verified"]
    assert [p["memories"] for p in figures["purges"]] == [1, 5]
    five = figures["purges"][1]
    assert figures["ratios"]["purge_5_files"] == five["files_s"] / five["compaction_s"] / 2


def test_help_and_a_store_too_small_for_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["bench", "curate", "--help"], capsys)
    assert code == 0 and "--memories" in out and "--pairs" in out
    code, _, err = run_cli(["bench", "curate", "--memories", "100", "--archive", "90",
                            "--pairs", "5"], capsys)
    assert code == 1 and "at least --archive + 2 * (--pairs + 10) + the --purges sizes (4221)" \
        in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["bench", "curate", "--purges", "1,x"], capsys)
    assert code == 1 and "--purges is counts separated by commas" in err
