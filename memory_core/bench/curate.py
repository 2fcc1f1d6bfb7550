"""`memlens bench curate`: archive, undo, merge and purge times on a synthetic store.

Targets on a 2-core machine in a 100,000-memory store: archive of 10,000
memories selected by a filter <= 5 s, the undo of that archive <= 5 s, 100 merges of two
memories each <= 5 s in all (as one batch, `merge_many`, as the near-duplicates queue
merges; ten single merges after it give the latency of one), the purge of one memory <=
30 s, compaction and the removal of older versions included, and purges of 1, 100 and 4,000
memories whose "files on disk" check takes at most 2x their compaction (`curate_purge`).
The store is the search
benchmark's (demo texts recombined, clustered random unit vectors, about one edge per ten
memories, written as Arrow batches, nothing embedded), indexed as `memlens index` leaves it;
the memories each step acts on are marked by a project of their own, so a filter selects
them."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from memory_core.bench.curate_purge import (
    FILES_RATIO_TARGET,
    PURGE_PREFIX,
    PURGE_SIZES,
    PurgeTiming,
    check_purge_sizes,
    purge_roles,
    run_purges,
)
from memory_core.bench.targets import target_figures, target_line
from memory_core.embedding import Embedder, load_embedder
from memory_core.model.config import Settings
from memory_core.model.errors import EmbedderUnavailableError
from memory_core.model.filters import Filter
from memory_core.store import MemoryStore

ARCHIVE_TARGET_S = 5.0
UNDO_TARGET_S = 5.0
MERGE_TARGET_S = 5.0
PURGE_TARGET_S = 30.0
#: Projects marking the memories each step acts on (the demo corpus has none of these).
ARCHIVE_PROJECT, MERGE_PROJECT, PURGE_PROJECT = "bench-archive", "bench-merge", PURGE_PREFIX
#: Merges run one by one after the batch, for the latency of a single merge.
SINGLE_MERGES = 10

Progress = Callable[[int], None]
T = TypeVar("T")


@dataclass(frozen=True)
class CurateBench:
    """Figures of one curation benchmark run (seconds unless named otherwise)."""

    memories: int
    edges: int
    write_s: float
    index_s: float
    archived: int
    archive_s: float
    restored: int
    undo_s: float
    pairs: int
    merge_s: float
    merge_p50_ms: float
    merge_max_ms: float
    #: The smallest purge (`purges[0]`, one memory by default) as a caller sees it.
    purge_s: float
    #: The part of it in `store.changes.drop_old_versions` (full-text index rebuilt, the four
    #: tables compacted, older versions removed from disk).
    compaction_s: float
    #: The part of it in its `verify_deleted`.
    verify_s: float
    purge_verified: bool
    #: Every timed purge, smallest first.
    purges: tuple[PurgeTiming, ...] = ()

    @property
    def purge_without_verify_s(self) -> float:
        return max(self.purge_s - self.verify_s, 0.0)

    def ratios(self) -> dict[str, float]:
        """Each figure over its target (<= 1 meets it)."""
        return {"archive": self.archive_s / ARCHIVE_TARGET_S,
                "undo": self.undo_s / UNDO_TARGET_S,
                "merge": self.merge_s / MERGE_TARGET_S,
                "purge": self.purge_s / PURGE_TARGET_S,
                "purge_without_verify": self.purge_without_verify_s / PURGE_TARGET_S,
                **{f"purge_{p.memories}_files": p.files_ratio for p in self.purges}}

    def to_dict(self) -> dict[str, Any]:
        """Every figure, its ratio to the target and whether it meets it, as plain data."""
        ratios = self.ratios()
        return {**asdict(self), "purge_without_verify_s": self.purge_without_verify_s,
                "files_ratio_target": FILES_RATIO_TARGET,
                **target_figures({"archive": ARCHIVE_TARGET_S, "undo": UNDO_TARGET_S,
                                  "merge": MERGE_TARGET_S, "purge": PURGE_TARGET_S}, ratios)}

    def lines(self) -> list[str]:
        """The figures as text lines, each with its target and ratio."""
        ratios = self.ratios()

        def line(label: str, seconds: float, key: str, target: float, extra: str = "") -> str:
            return target_line(label, seconds, ratios[key], target, extra=extra)

        return [
            f"store: {self.memories} memories, {self.edges} edges; written in "
            f"{self.write_s:.1f} s, indexed in {self.index_s:.1f} s",
            line(f"archive {self.archived} by filter", self.archive_s, "archive",
                 ARCHIVE_TARGET_S),
            line(f"undo of that archive ({self.restored})", self.undo_s, "undo", UNDO_TARGET_S),
            line(f"merge of {self.pairs} pairs", self.merge_s, "merge", MERGE_TARGET_S,
                 "  (one batch)"),
            f"{'  a single merge':<30}p50 {self.merge_p50_ms:.0f} ms, max "
            f"{self.merge_max_ms:.0f} ms ({SINGLE_MERGES} merges one by one)",
            line(f"purge of {self.purges[0].memories if self.purges else 1} memory",
                 self.purge_s, "purge", PURGE_TARGET_S,
                 f"  verified: {'yes' if self.purge_verified else 'NO'}"),
            f"{'  of which compaction':<30}{self.compaction_s:7.2f} s  (full-text index "
            f"rebuilt, tables compacted, older versions removed)",
            f"{'  of which verification':<30}{self.verify_s:7.2f} s  (verify_deleted)",
            line("purge without verification", self.purge_without_verify_s,
                 "purge_without_verify", PURGE_TARGET_S),
            *(text for purge in self.purges for text in purge.lines()),
        ]


def _marked(table: Any, start: int, roles: dict[int, str]) -> Any:
    """`table` (rows `start`...) with the project of each row in `roles` set, made active;
    a memory to purge also gets a content of its own (the recombined texts repeat, and a
    purged text that another memory still holds is a leak the verification reports)."""
    import pyarrow as pa

    from memory_core.model.values import content_hash

    rows = [i for i in range(table.num_rows) if start + i in roles]
    if not rows:
        return table
    project, status = table["project"].to_pylist(), table["status"].to_pylist()
    content, digest = table["content"].to_pylist(), table["content_hash"].to_pylist()
    for i in rows:
        project[i], status[i] = roles[start + i], "active"
        if roles[start + i].startswith(PURGE_PREFIX):
            content[i] = f"{content[i]} (row {start + i} of {roles[start + i]})"
            digest[i] = content_hash(content[i])
    for name, values in (("project", project), ("status", status), ("content", content),
                         ("content_hash", digest)):
        index = table.schema.get_field_index(name)
        table = table.set_column(index, table.schema.field(name),
                                 pa.array(values, table.schema.field(name).type))
    return table


def build_store(store: MemoryStore, memories: int, *, archive: int, pairs: int,
                purges: tuple[int, ...] = PURGE_SIZES, seed: int = 0,
                progress: Progress | None = None) -> int:
    """Write the search benchmark's synthetic memories (and about one edge per ten) with
    `archive` of them in `ARCHIVE_PROJECT`, `2 * (pairs + SINGLE_MERGES)` in `MERGE_PROJECT`
    and, for each size of `purges`, that many in `purge_project(size)`, all active; returns
    the edges written."""
    import numpy as np

    from memory_core.bench.search import synthetic_batches, synthetic_edges

    order = np.random.default_rng(seed).permutation(memories)
    roles = {int(i): ARCHIVE_PROJECT for i in order[:archive]}
    merged = 2 * (pairs + SINGLE_MERGES)
    roles |= {int(i): MERGE_PROJECT for i in order[archive:archive + merged]}
    roles |= purge_roles(iter(int(i) for i in order[archive + merged:]), purges)
    ids: list[str] = []
    topics: list[int] = []
    for table, batch_topics in synthetic_batches(store, memories, seed=seed):
        store.bulk.append("memory", _marked(table, len(ids), roles))
        ids.extend(table["id"].to_pylist())
        topics.extend(int(t) for t in batch_topics)
        if progress is not None:
            progress(table.num_rows)
    edges = synthetic_edges(ids, topics, memories // 10, tenant=store.tenant, seed=seed)
    return store.edges.add(edges, check_endpoints=False, reason="bench curate")


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def time_curation(store: MemoryStore, pairs: int,
                  purges: tuple[int, ...] = PURGE_SIZES) -> dict[str, Any]:
    """Archive `ARCHIVE_PROJECT` by filter, undo it, merge the `MERGE_PROJECT` memories two
    by two and run the purges of `purges` (`curate_purge`); the timings."""
    import numpy as np
    from tqdm import tqdm

    from memory_core.curation import archive, merge, merge_many, undo

    archive_s, archived = _timed(lambda: archive(store, Filter(project=ARCHIVE_PROJECT),
                                                 reason="bench curate"))
    batch_id = archived.batch_id
    if batch_id is None:  # only a preview has none
        raise RuntimeError("the timed archive wrote no batch to undo")
    undo_s, restored = _timed(lambda: undo(store, batch_id))
    ids = sorted(store.ids(Filter(project=MERGE_PROJECT)))
    couples = list(zip(ids[::2], ids[1::2], strict=True))
    groups = [([a, b], a) for a, b in couples[:pairs]]
    merge_s, _ = _timed(lambda: merge_many(store, groups, reason="bench curate"))
    merges: list[float] = []
    for a, b in tqdm(couples[pairs:pairs + SINGLE_MERGES], desc="merging", unit="merge",
                     disable=None, leave=False):
        start = time.perf_counter()
        merge(store, [a, b], a)
        merges.append(time.perf_counter() - start)
    timed = run_purges(store, purges)
    ms = np.asarray(merges) * 1000.0
    return {"archived": archived.count, "archive_s": archive_s, "restored": restored.count,
            "undo_s": undo_s, "pairs": len(groups), "merge_s": merge_s,
            "merge_p50_ms": float(np.percentile(ms, 50)), "merge_max_ms": float(ms.max()),
            "purge_s": timed[0].purge_s, "compaction_s": timed[0].compaction_s,
            "verify_s": timed[0].verify_s, "purge_verified": all(p.verified for p in timed),
            "purges": timed}


def check_sizes(memories: int, archive: int, pairs: int,
                purges: tuple[int, ...] = PURGE_SIZES) -> None:
    """`ValueError` unless the store has room for the archived, merged and purged memories."""
    if archive < 1 or pairs < 1:
        raise ValueError("--archive and --pairs must be at least 1")
    check_purge_sizes(purges)
    needed = archive + 2 * (pairs + SINGLE_MERGES) + sum(purges)
    if needed > memories:
        raise ValueError(f"--memories must be at least --archive + 2 * (--pairs + "
                         f"{SINGLE_MERGES}) + the --purges sizes ({needed})")


def run_curate_bench(memories: int = 100_000, *, archive: int = 10_000, pairs: int = 100,
                     purges: tuple[int, ...] = PURGE_SIZES, embedder: Embedder | None = None,
                     settings: Settings | None = None,
                     folder: Path | None = None) -> CurateBench:
    """Build and index the synthetic store (in `folder`, kept, or a temporary folder) and time
    the curation steps. `embedder` (default: the configured model) embeds what the purge's
    verification searches for; the store's own vectors are synthetic."""
    check_sizes(memories, archive, pairs, purges)
    from tqdm import tqdm

    from memory_core.store.indexes import ensure_indexes, index_steps

    settings = settings or Settings.from_env()
    embedder = embedder or load_embedder(settings)
    try:  # load the model before anything is timed
        embedder.embed_one("load the model")
    except EmbedderUnavailableError:
        pass  # the verification's searches by text then say they were skipped
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        root = folder or Path(tmp)
        store = MemoryStore.open(str(root / "store"), embedder=embedder, settings=settings)
        start = time.perf_counter()
        with tqdm(total=memories, desc="writing", unit="memory", disable=None,
                  leave=False) as bar:
            edges = build_store(store, memories, archive=archive, pairs=pairs,
                                purges=purges, progress=bar.update)
        write_s = time.perf_counter() - start
        with tqdm(total=index_steps(), desc="indexing", unit="step", disable=None,
                  leave=False) as bar:
            index_s = ensure_indexes(store, progress=bar.update).total_seconds
        figures = time_curation(store, pairs, purges)
    return CurateBench(memories=memories, edges=edges, write_s=write_s, index_s=index_s,
                       **figures)
