"""Two real processes curating one store at once lose no update: each action re-reads the
rows under the store's write lock, so one process's tag edits and the other's importance
edits of the same memories both survive, and so do archives made between them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder
from tests.memory_core.curation.conftest import corpus_of

pytestmark = pytest.mark.hardening  # the hardening suite (issue 18)

ROOT = Path(__file__).resolve().parents[3]

WORKER = """
import sys
from memory_core.curation import archive, edit
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

import time
from pathlib import Path

uri, role, barrier, *ids = sys.argv[1:]
store = MemoryStore.open(uri, embedder=FakeEmbedder())
store.get(ids[0])  # warm up before the race
Path(barrier, role).touch()
while not Path(barrier, "go").exists():
    time.sleep(0.01)
for n, memory_id in enumerate(ids):
    if role == "tags":
        edit(store, memory_id, tags=["from-tags-worker"])
    else:
        edit(store, memory_id, importance="critical", why=f"worker edit {n}")
        if n % 4 == 0:
            archive(store, [memory_id])
print("done", role)
"""


def _worker(uri: str, role: str, barrier: Path, ids: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", WORKER, uri, role, str(barrier), *ids],
                            cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_processes_editing_the_same_memories_lose_nothing(store_path: str,
                                                              fake_embedder: FakeEmbedder,
                                                              tmp_path: Path) -> None:
    store = MemoryStore.open(store_path, embedder=fake_embedder)
    ids = corpus_of(store, n=16).ids
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = [_worker(store_path, role, barrier, ids) for role in ("tags", "importance")]
    deadline = time.monotonic() + 120
    while not ((barrier / "tags").exists() and (barrier / "importance").exists()):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.01)
    (barrier / "go").touch()  # both start editing the same memories at the same moment
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    after = {m.id: m for m in store.list(Filter(status=STATUSES))}
    assert all(after[i].tags == ("from-tags-worker",) for i in ids)
    assert all(after[i].importance == "critical" for i in ids)
    assert {i for i in ids if after[i].status == "archived"} == set(ids[::4])
    # one batch per action, every one in the audit
    edits = store.audit.query(action="edit", limit=None)
    assert len({e.batch_id for e in edits}) == 2 * len(ids)


def test_a_commit_conflict_is_a_clear_error_and_changes_nothing(
        store_path: str, fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.curation import archive
    from memory_core.model.errors import StoreBusyError

    store = MemoryStore.open(store_path, embedder=fake_embedder)
    ids = corpus_of(store).ids
    versions = store.table_versions()
    table = type(store.tables.memories)
    real = table.merge_insert

    def conflicting(self: object, on: str) -> object:
        builder = real(self, on)  # type: ignore[arg-type]

        class Raising:
            def __getattr__(self, name: str) -> object:
                if name == "execute":
                    def execute(*args: object, **kwargs: object) -> None:
                        raise RuntimeError("Commit conflict for version 7: retry")
                    return execute
                attr = getattr(builder, name)
                return lambda *a, **k: (attr(*a, **k), self)[1]
        return Raising()

    monkeypatch.setattr(table, "merge_insert", conflicting)
    with pytest.raises(StoreBusyError, match="commit conflict.*run it again"):
        archive(store, ids[:2])
    monkeypatch.undo()
    assert store.table_versions() == versions
    assert store.get(ids[0]).status == "active"
