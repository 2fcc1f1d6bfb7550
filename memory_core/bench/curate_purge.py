"""The purges of `memlens bench curate`: 1, 100 and 4,000 memories, each timed as a caller
sees it and in its parts (compaction, verification, and the verification's "files on disk"
check), with the files check's target: at most 2x the time of the compaction it verifies,
measured in the same purge."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from memory_core.model.filters import Filter
from memory_core.model.schema import STATUSES
from memory_core.store import MemoryStore

#: Memories in each timed purge (each selected by a project of its own).
PURGE_SIZES = (1, 100, 4000)
#: The files check over the compaction it verifies.
FILES_RATIO_TARGET = 2.0
PURGE_PREFIX = "bench-purge"


def purge_project(memories: int) -> str:
    """The project marking the memories of the purge of `memories`."""
    return f"{PURGE_PREFIX}-{memories}"


@contextmanager
def time_calls(obj: Any, name: str, into: list[float]) -> Iterator[None]:
    """Time each call of `obj.name` (a method of this instance, or a module's function)
    into `into` while the block runs; the original is put back after."""
    own = name in vars(obj)
    original = getattr(obj, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - start)

    setattr(obj, name, timed)
    try:
        yield
    finally:
        if own:
            setattr(obj, name, original)
        else:
            delattr(obj, name)  # the class's method again


@dataclass(frozen=True)
class PurgeTiming:
    """One timed purge (seconds)."""

    memories: int
    #: `delete(..., purge=True)` as a caller sees it: purge, compaction, verification.
    purge_s: float
    #: `store.changes.drop_old_versions`: full-text index rebuilt, tables compacted, older
    #: versions removed from disk.
    compaction_s: float
    #: The purge's `verify_deleted`.
    verify_s: float
    #: Its "files on disk" check (every file of the store read once for every needle).
    files_s: float
    verified: bool

    @property
    def files_ratio(self) -> float:
        """The files check over the compaction, itself over `FILES_RATIO_TARGET`."""
        if self.compaction_s <= 0:
            return math.inf
        return self.files_s / self.compaction_s / FILES_RATIO_TARGET

    def lines(self) -> list[str]:
        """Two lines: the purge in its parts, and the files check against its target."""
        ratio = self.files_ratio
        verdict = "PASS" if ratio <= 1.0 else "FAIL"
        return [
            f"{f'purge of {self.memories}':<30}{self.purge_s:7.2f} s  (compaction "
            f"{self.compaction_s:.2f} s, verification {self.verify_s:.2f} s; verified: "
            f"{'yes' if self.verified else 'NO'})",
            f"{'  files check':<30}{self.files_s:7.2f} s  (target <= {FILES_RATIO_TARGET:.0f}"
            f" x compaction: {self.files_s / max(self.compaction_s, 1e-9):.2f} x, ratio "
            f"{ratio:.2f}) {verdict}",
        ]


def time_purge(store: MemoryStore, memories: int) -> PurgeTiming:
    """Purge the memories of `purge_project(memories)`, timing it and its parts."""
    from memory_core.curation import actions, delete, verify

    ids = sorted(store.ids(Filter(project=purge_project(memories), status=STATUSES)))
    compaction: list[float] = []
    verification: list[float] = []
    files: list[float] = []
    # the compaction, and the removal of older versions that follows the purge's commit
    with time_calls(store.changes, "drop_old_versions", compaction), \
            time_calls(store.bulk, "remove_old_versions", compaction), \
            time_calls(actions, "verify_purged", verification), \
            time_calls(verify, "files_check", files):
        start = time.perf_counter()
        report = delete(store, ids, purge=True, reason="bench curate")
        purge_s = time.perf_counter() - start
    return PurgeTiming(memories=len(ids), purge_s=purge_s, compaction_s=sum(compaction),
                       verify_s=sum(verification), files_s=sum(files),
                       verified=bool(report.verification and report.verification.passed))


def purge_roles(order: Iterator[int], sizes: tuple[int, ...]) -> dict[int, str]:
    """Row -> purge project: the next `size` rows of `order` for each size."""
    roles = {}
    for size in sizes:
        for _ in range(size):
            roles[next(order)] = purge_project(size)
    return roles


def check_purge_sizes(sizes: tuple[int, ...]) -> None:
    """`ValueError` unless `sizes` are distinct positive counts."""
    if not sizes or any(s < 1 for s in sizes) or len(set(sizes)) != len(sizes):
        raise ValueError(f"--purges must be distinct counts of at least 1, got "
                         f"{','.join(map(str, sizes)) or 'none'}")


def run_purges(store: MemoryStore, sizes: tuple[int, ...],
               progress: Callable[[str], None] | None = None) -> tuple[PurgeTiming, ...]:
    """Each purge of `sizes`, smallest first."""
    out = []
    for size in sorted(sizes):
        if progress is not None:
            progress(f"purging {size}")
        out.append(time_purge(store, size))
    return tuple(out)
