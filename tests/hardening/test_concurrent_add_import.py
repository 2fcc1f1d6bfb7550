"""An `add --file` and an `import` writing one store at the same time (issue 18): real
processes (tests/racers.py) let go together, in both orders and with overlapping ids.

Afterwards every record is there and counted exactly, ids are unique, both writes left their
audit rows, `memlens stats` sees no dangling edge nor interrupted write, and the recovery
drill (export, verify, rehearse, drop, import, compare) passes on the store.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from memory_core.exchange.export import export_store
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Memory
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder, pending_store, run_cli
from tests.racers import RacerPair

pytestmark = pytest.mark.xdist_group("racers")  # one racer pair serves every race

N = 150  # memories of the `add --file`
M = 150  # memories of the import, with M - 1 edges
SHARED = 40  # ids both files hold, in the overlapping round
IMPORTED = [f"s-{i:03d}" for i in range(SHARED)] + [f"i-{i:03d}" for i in range(M - SHARED)]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one memory, made once (making one takes seconds; copying it, not)."""
    path = tmp_path_factory.mktemp("race-base") / "store"
    return pending_store(path, "the first memory")


def _add_file(path: Path, ids: list[str]) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for memory_id in ids:
            out.write(json.dumps({"id": memory_id, "content": f"added {memory_id}: the "
                                  f"deploy of service {memory_id[-2:]} needs a flag"}) + "\n")
    return path


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A memlens export of the `IMPORTED` memories chained by `causes` edges."""
    folder = tmp_path_factory.mktemp("race-export")
    source = MemoryStore.open(str(folder / "source"), embedder=FakeEmbedder())
    source.add([Memory.new(f"imported {i}: the cache of region {i[-2:]} was cold", "fact",
                           id=i) for i in IMPORTED], dedup=False)
    source.edges.add([Edge.new(a, b, "causes", id=f"e-{a}")
                      for a, b in zip(IMPORTED, IMPORTED[1:], strict=False)])
    export_store(source, folder / "export.ndjson")
    return folder / "export.ndjson"


def _race(racers: RacerPair, tmp_path: Path, store: Path, first: str, add: Path,
          export: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """Run `add --file` and `import --mode merge` at once; `first` is let go 20 ms earlier."""
    argv = {"add": ["--store", str(store), "add", "--file", str(add)],
            "import": ["--store", str(store), "import", str(export), "--mode", "merge"]}
    order = [first, "import" if first == "add" else "add"]
    results = racers.race([argv[name] for name in order], tmp_path, stagger=0.02)
    return dict(zip(order, results, strict=True))


def _checked(store_path: Path, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> MemoryStore:
    """The store after a race: tables open, no dangling edge or interrupted write, and the
    recovery drill passes."""
    monkeypatch.setenv("MEMLENS_EMBED_MODEL", "none")
    code, out, err = run_cli(["--store", str(store_path), "stats", "--json"], capsys)
    assert code == 0, err
    stats = json.loads(out)
    assert stats["dangling_edges"] == 0 and stats["interrupted_write"] is None
    code, out, err = run_cli(["--store", str(store_path), "drill", "--json",
                              "--export-dir", str(store_path.parent / "drill")], capsys)
    assert code == 0 and json.loads(out)["passed"], out + err
    return MemoryStore.open(str(store_path), embedder=FakeEmbedder(), check_vectors=False)


def _actions(store: MemoryStore) -> Counter[str]:
    return Counter(entry.action for entry in store.audit.entries(limit=1000))


@pytest.mark.parametrize("first", ["add", "import"])
def test_an_add_and_an_import_at_once_keep_every_record(
        tmp_path: Path, base: Path, export: Path, racers: RacerPair, first: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    store_path = tmp_path / "store"
    shutil.copytree(base, store_path)
    added = [f"a-{i:03d}" for i in range(N)]
    results = _race(racers, tmp_path, store_path, first,
                    _add_file(tmp_path / "add.ndjson", added), export)
    for result in results.values():
        assert result.returncode == 0, result.stderr
    assert f"{N} inserted" in results["add"].stdout
    assert f"memories: {M} imported" in results["import"].stdout
    store = _checked(store_path, monkeypatch, capsys)
    ids = [m.id for m in store.list(Filter(status=STATUSES))]
    assert len(ids) == len(set(ids)) == 1 + N + M
    assert set(added) | set(IMPORTED) < set(ids)
    assert store.get("a-007").content.startswith("added a-007")
    assert store.get("i-007").content.startswith("imported i-007")
    assert store.edges.count() == M - 1
    actions = _actions(store)
    assert actions["add"] == 2 and actions["import"] == 1  # the first memory, then the race


def test_an_add_and_an_import_of_the_same_ids_end_in_one_legal_state(
        tmp_path: Path, base: Path, export: Path, racers: RacerPair,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ids in both files: if the add wins the lock it inserts them and the import updates
    them; if the import wins, the add refuses its whole file (those ids exist)."""
    store_path = tmp_path / "store"
    shutil.copytree(base, store_path)
    added = [f"a-{i:03d}" for i in range(N - SHARED)] + IMPORTED[:SHARED]
    results = _race(racers, tmp_path, store_path, "add",
                    _add_file(tmp_path / "add.ndjson", added), export)
    assert results["import"].returncode == 0, results["import"].stderr
    store = _checked(store_path, monkeypatch, capsys)
    ids = [m.id for m in store.list(Filter(status=STATUSES))]
    assert len(ids) == len(set(ids))
    actions = _actions(store)
    if results["add"].returncode == 0:  # the add went first
        assert len(ids) == 1 + N + M - SHARED
        assert f"{M - SHARED} imported, {SHARED} updated" in results["import"].stdout
        assert actions["add"] == 2
    else:
        err = results["add"].stderr
        assert "already exists" in err and err.count("\n") == 1, err
        assert len(ids) == 1 + M and not any(i.startswith("a-") for i in ids)
        assert actions["add"] == 1
    assert store.get("s-005").content.startswith("imported s-005")  # the import came last
    assert store.edges.count() == M - 1 and actions["import"] == 1
