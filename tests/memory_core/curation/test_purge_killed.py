"""`kill -9` anywhere in a purge leaves the store before it or after it, never a broken one
(issue 42, item 1).

`memlens delete --project beta --purge --yes` runs in a real subprocess on a small store with
several versions of every table, and is killed (a) the moment its clean-up starts removing
old versions (its journal turns to the `cleanup` phase, or, on a memlens without that phase,
the first version manifest disappears), (b) during its verification (after the write step
ended), and (c) at a seeded schedule of delays across the whole purge. After each kill the
store must open, read every row, and hold exactly what it held before the purge or exactly
what a completed purge leaves (and then no older version of the purged rows on disk).
"""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.model.config import Settings
from memory_core.model.filters import Filter
from memory_core.model.records import Edge, Event, Memory
from memory_core.model.schema import STATUSES
from memory_core.stats import store_stats
from memory_core.store import MemoryStore
from memory_core.store.lock import JOURNAL_FILE, LOCK_FILE

pytestmark = [pytest.mark.hardening, pytest.mark.slow]

CLI = [sys.executable, "-c", "from memory_core.cli import main; main()"]
PURGE = ["delete", "--project", "beta", "--purge", "--yes", "--reason", "kill test"]
AT_CLEANUP, IN_VERIFICATION, SCHEDULED = 4, 3, 24  # 31 kills
SEED = 42


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "MEMLENS_EMBED_MODEL": "none", "MEMLENS_MODEL_CACHE": str(cache)}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 40 memories in two projects (five commits, so every table has older
    versions for the purge to remove), edges across them and events naming them."""
    folder = tmp_path_factory.mktemp("purge-killed")
    path = folder / "store"
    with pytest.MonkeyPatch.context() as env:
        for key, value in _env(folder / "cache").items():
            env.setenv(key, value)
        store = MemoryStore.open(str(path), settings=Settings.from_env(), check_vectors=False)
        ids: list[str] = []
        for batch in range(5):
            memories = [Memory.new(f"note {batch}-{i}: the {('alpha', 'beta')[i % 2]} service "
                                   f"deploys with flag quokka{batch}{i}", "fact",
                                   project=("alpha", "beta")[i % 2]) for i in range(8)]
            store.add(memories)
            ids += [m.id for m in memories]
            store.edges.add([Edge.new(ids[-1], ids[-2], "supports"),
                             Edge.new(ids[-3], ids[0], "caused")])
        store.events.record([Event.new("cite", i) for i in ids[::3]])
    return path


def _open(path: Path) -> MemoryStore:
    """A writable handle (it recovers a dead writer's journal, as any command does)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MEMLENS_EMBED_MODEL", "none")
        return MemoryStore.open(str(path), settings=Settings.from_env(), check_vectors=False)


def _state(path: Path) -> tuple[Any, ...]:
    """What the store holds, read through every table's data files: memories (id, content
    hash, content), edge ids, events, and the audit's actions (recovery's own rows aside)."""
    store = _open(path)
    store_stats(store)  # what `memlens stats` reads
    rows = store.bulk.scan(["id", "content_hash", "content"]).to_pylist()
    memories = frozenset((r["id"], r["content_hash"], r["content"]) for r in rows)
    assert len(memories) == store.count(Filter(status=STATUSES)) == len(rows)
    edges = frozenset(e.id for e in store.edges.list(include_inactive=True))
    events = store.events.scan(columns=["id"]).num_rows
    actions = tuple(sorted(e.action for e in store.audit.entries(limit=10_000)
                           if e.action != "recover"))
    return memories, edges, events, actions


def _versions(path: Path, name: str) -> int:
    return len(list((path / f"{name}.lance" / "_versions").glob("*.manifest")))


def _purge(path: Path, cache: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*CLI, "--store", str(path), *PURGE], env=_env(cache),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait(process: subprocess.Popen[bytes], until: Callable[[], bool]) -> bool:
    """Poll until `until()` holds; False when the process ended first."""
    while process.poll() is None:
        if until():
            return True
        time.sleep(0.001)
    return False


def _journal(path: Path) -> str | None:
    try:
        return (path / JOURNAL_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


class Run:
    """One purge on a fresh copy of `base`, its moments observed from outside.

    The copy's write lock is held until `start`, so the process can pay its start-up (most
    of its time) while the test still checks the previous run, and then waits to purge."""

    def __init__(self, base: Path, path: Path, cache: Path) -> None:
        shutil.copytree(base, path)
        self.path = path
        self.manifests = {n: _versions(path, n) for n in ("memories", "edges", "audit")}
        self._gate = os.open(path / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._gate, fcntl.LOCK_EX)
        self.process = _purge(path, cache)

    def start(self) -> Run:
        """Let the purge take the lock; returns once it has journaled its write."""
        fcntl.flock(self._gate, fcntl.LOCK_UN)
        os.close(self._gate)
        assert _wait(self.process, self.wrote), "the purge ended before it wrote"
        return self

    def wrote(self) -> bool:
        """The purge has taken the lock and journaled its write."""
        return _journal(self.path) is not None

    def written(self) -> bool:
        """The write step has ended (its journal is gone): what follows is verification."""
        return not self.wrote()

    def cleaning(self) -> bool:
        """Old versions are being removed (the journal's clean-up phase, or a manifest
        gone, for a purge that removes them inside its write)."""
        journal = _journal(self.path)
        return (journal is not None and '"cleanup"' in journal) or any(
            _versions(self.path, n) < k for n, k in self.manifests.items())

    def kill(self) -> bool:
        """SIGKILL (no clean-up code runs); whether it landed before the purge ended."""
        self.process.kill()
        return self.process.wait() != 0


def _runs(base: Path, folder: Path, n: int) -> Iterator[Run]:
    """`n` purges, each started once the one before is handed back (the next one is
    already waiting at the lock meanwhile)."""
    waiting: Run | None = Run(base, folder / "run-0", folder / "cache")
    try:
        for trial in range(n):
            assert waiting is not None
            run, waiting = waiting.start(), None
            if trial + 1 < n:
                waiting = Run(base, folder / f"run-{trial + 1}", folder / "cache")
            yield run
            run.kill()  # a no-op when the test has killed it or it ended
    finally:
        if waiting is not None:  # a test stopped early: no process left waiting at a lock
            waiting.kill()


@pytest.fixture(scope="module")
def outcomes(base: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[tuple[Any, ...], tuple[Any, ...], dict[str, float]]:
    """The store before and after a completed purge, and when its phases begin and end
    (seconds from the journal's first appearance)."""
    run = next(_runs(base, tmp_path_factory.mktemp("purge-full"), 1))
    start = time.monotonic()
    assert _wait(run.process, run.cleaning)
    cleanup = time.monotonic() - start
    assert _wait(run.process, run.written)
    written = time.monotonic() - start
    assert run.process.wait(timeout=300) == 0
    ended = time.monotonic() - start
    return _state(base), _state(run.path), {"cleanup": cleanup, "written": written,
                                             "ended": ended}


def _sizes(state: tuple[Any, ...]) -> tuple[int, ...]:
    return len(state[0]), len(state[1]), state[2], len(state[3])


def _check(path: Path, before: tuple[Any, ...], after: tuple[Any, ...], when: str = "") -> str:
    """The store opens and holds the state before or after the purge: which one."""
    held = _state(path)
    assert held in (before, after), (f"neither before nor after the purge ({when}): held "
                                      f"{_sizes(held)}, before {_sizes(before)}, after "
                                      f"{_sizes(after)}")
    if held == after:  # a completed purge leaves no older version of the purged rows
        assert _versions(path, "memories") == _versions(path, "edges") == 1
        return "after"
    return "before"


def test_purged_rows_leave_the_store(outcomes: tuple[Any, ...]) -> None:
    before, after, _ = outcomes
    assert len(before[0]) == 40 and len(after[0]) == 20
    assert "purge" in after[3] and "purge" not in before[3]


def test_a_purge_killed_as_its_clean_up_starts_leaves_the_store_after_it(
        tmp_path: Path, base: Path, outcomes: tuple[Any, ...]) -> None:
    before, after, _ = outcomes
    for run in _runs(base, tmp_path, AT_CLEANUP):
        assert _wait(run.process, run.cleaning), "the purge ended before its clean-up"
        assert run.kill()
        assert _check(run.path, before, after) == "after"  # committed: rolled forward
        assert _journal(run.path) is None


def test_a_purge_killed_during_its_verification_leaves_the_store_after_it(
        tmp_path: Path, base: Path, outcomes: tuple[Any, ...]) -> None:
    before, after, times = outcomes
    schedule = random.Random(SEED)
    verification = times["ended"] - times["written"]
    for run in _runs(base, tmp_path, IN_VERIFICATION):
        assert _wait(run.process, run.written)
        time.sleep(schedule.uniform(0.0, 0.8) * verification)
        run.kill()
        assert _check(run.path, before, after) == "after"


def test_a_purge_killed_anywhere_leaves_the_store_before_or_after_it(
        tmp_path: Path, base: Path, outcomes: tuple[Any, ...]) -> None:
    before, after, times = outcomes
    schedule = random.Random(SEED)
    seen = []
    for trial, run in enumerate(_runs(base, tmp_path, SCHEDULED)):
        delay = schedule.uniform(0.0, 1.0) * times["ended"]
        time.sleep(delay)
        run.kill()
        seen.append(_check(run.path, before, after, f"trial {trial}, {delay:.2f} s, {times}"))
    assert "before" in seen and "after" in seen, (seen, times)  # the kills spanned the purge
