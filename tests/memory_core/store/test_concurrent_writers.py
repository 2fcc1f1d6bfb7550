"""Two `memlens` processes writing one store at once (issue 20, item 1): ids stay unique and
content stays de-duplicated, because every write holds the store's write lock while it
checks and writes. Real processes (tests/racers.py) let go together, several rounds."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.exchange.importer import import_file
from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, pending_store
from tests.racers import RacerPair

# the hardening suite (issue 18); one racer pair serves every race of the session
pytestmark = [pytest.mark.hardening, pytest.mark.xdist_group("racers")]

ROUNDS = 2
N = 300


def _lines(path: Path, *, with_ids: bool) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(N):
            line = {"content": f"memory {i}: the deploy of service {i % 17} needs a flag"}
            if with_ids:
                line["id"] = f"m-{i:03d}"
            out.write(json.dumps(line) + "\n")
    return path


def _ids(store: Path) -> list[str]:
    opened = MemoryStore.open(str(store), embedder=FakeEmbedder(), check_vectors=False)
    return [m.id for m in opened.list(Filter(status=STATUSES))]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with one memory, made once per module (copying it takes no time)."""
    path = tmp_path_factory.mktemp("writers-base") / "store"
    return pending_store(path, "the first memory")


def _raced(tmp_path: Path, base: Path, racers: RacerPair, *, with_ids: bool
           ) -> tuple[Path, list[subprocess.CompletedProcess[str]]]:
    """A copy of `base`, and the two processes that added the same file to it at once."""
    store = tmp_path / "store"
    shutil.copytree(base, store)
    argv = ["--store", str(store), "add", "--file",
            str(_lines(tmp_path / "same.ndjson", with_ids=with_ids))]
    return store, racers.race([argv, argv], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_adds_of_the_same_ids_insert_them_once(tmp_path: Path, base: Path,
                                                   racers: RacerPair, round_: int) -> None:
    store, results = _raced(tmp_path, base, racers, with_ids=True)
    codes = sorted(r.returncode for r in results)
    assert codes == [0, 1], [r.stderr for r in results]
    winner = next(r for r in results if r.returncode == 0)
    loser = next(r for r in results if r.returncode == 1)
    assert f"{N} inserted" in winner.stdout
    assert "already exists" in loser.stderr and loser.stderr.count("\n") == 1
    ids = _ids(store)
    assert len(ids) == len(set(ids)) == N + 1
    # and the store still round-trips: export, import elsewhere, same ids
    opened = MemoryStore.open(str(store), embedder=FakeEmbedder(), check_vectors=False)
    export_store(opened, tmp_path / "out.ndjson")
    again = MemoryStore.open(str(tmp_path / "again"), embedder=FakeEmbedder())
    assert len(import_file(again, tmp_path / "out.ndjson", embed=False).inserted) == N + 1


@pytest.mark.slow
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_adds_of_the_same_contents_keep_one_copy(tmp_path: Path, base: Path,
                                                     racers: RacerPair, round_: int) -> None:
    store, results = _raced(tmp_path, base, racers, with_ids=False)
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    reports = sorted(r.stdout for r in results)
    assert any(f"{N} inserted, 0 duplicates" in out for out in reports)
    assert any(f"0 inserted, {N} duplicates" in out for out in reports)
    assert len(_ids(store)) == N + 1
