"""Whether the memories table has outgrown its indexes, in numbers, and what fixes it.

Three findings, each only past a threshold a user would agree is worth a command:

- **Rows an index has not seen** (`UNINDEXED_ROWS`): LanceDB answers them by a flat scan on
  every query that uses the index, so the cost grows with their number, not their share.
  Past 10,000 rows that scan is a good part of a hybrid search's time budget (10,000 384-d
  vectors are 15 MB to compare; unindexed text is tokenised at query time); below it, it is
  noise. A missing filter or full-text index
  counts as one that has seen no row, so a store of a few thousand memories is never told
  to index.
- **A vector index missing** once `VECTOR_THRESHOLD` memories have vectors: the rule
  `memlens index` itself follows. Memories with vectors are counted by
  `embedding_status = 'ok'` (memlens writes the vector and that status together), because
  `vector IS NOT NULL` reads every vector.
- **Small fragments** (`SMALL_FRAGMENTS`): each write commits at least one data file, and
  every read opens every file, at a cost per fragment per read; a search reads the table
  several times, so past 30 small fragments the cost is a noticeable share of a search.
  LanceDB calls a fragment small below 100,000 rows.

`memlens index` fixes all three: it compacts the table, folds new rows into every index and
creates the missing ones. Indexes belong to the table, so the figures cover every tenant's
rows.
"""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from memory_core.store.indexes import (
    SCALAR_INDEXES,
    VECTOR_COLUMN,
    VECTOR_KIND,
    VECTOR_THRESHOLD,
)
from memory_core.store.memory_store import MemoryStore
from memory_core.store.queries import FTS_COLUMN

#: Unindexed rows (of one index) from which `memlens stats` and the Overview warn.
UNINDEXED_ROWS = 10_000
#: Small fragments of the memories table from which they warn.
SMALL_FRAGMENTS = 30
#: The command that compacts the table and brings every index up to date, and what it does.
FIX_COMMAND = "memlens index"
FIX_DOES = "to compact it and bring every index up to date"


@dataclass(frozen=True)
class IndexGap:
    """An index that lags the table: `missing` (never built) or behind by `unindexed_rows`."""

    column: str
    kind: str
    unindexed_rows: int
    missing: bool


@dataclass(frozen=True)
class IndexHealth:
    """The memories table's indexes and fragments against the thresholds above."""

    rows: int
    vector_rows: int
    fragments: int
    small_fragments: int
    #: Indexes past `UNINDEXED_ROWS` or missing under the rules, by column.
    gaps: tuple[IndexGap, ...] = ()
    #: What the fix command does, after "Run `memlens index ...`".
    FIX_DOES: ClassVar[str] = FIX_DOES

    @property
    def outgrown(self) -> bool:
        """Whether anything here is worth running `memlens index` for."""
        return bool(self.gaps) or self.small_fragments > SMALL_FRAGMENTS

    def problems(self) -> list[str]:
        """Each finding as a phrase with its numbers (empty when healthy); indexes behind by
        the same number of rows (a bulk write since the last `memlens index`) share one."""
        out = []
        missing = [g.column for g in self.gaps if g.missing]
        if missing:
            out.append(f"no index yet on {', '.join(missing)} ({self.rows:,} rows, "
                       f"{self.vector_rows:,} with vectors)")
        behind: dict[int, list[str]] = {}
        for gap in self.gaps:
            if not gap.missing:
                behind.setdefault(gap.unindexed_rows, []).append(gap.column)
        for rows, columns in sorted(behind.items(), reverse=True):
            out.append(f"{rows:,} rows not yet in the "
                       f"{'index' if len(columns) == 1 else 'indexes'} on {', '.join(columns)}")
        if self.small_fragments > SMALL_FRAGMENTS:
            out.append(f"{self.small_fragments} small fragments of {self.fragments} (every "
                       f"read opens each one)")
        return out

    def summary(self) -> str | None:
        """What the table has outgrown, in one sentence without the command, or None."""
        if not self.outgrown:
            return None
        return (f"The memories table ({self.rows:,} rows, every tenant) has outgrown its "
                f"indexes: {'; '.join(self.problems())}.")

    def warning(self, fix: str = FIX_COMMAND) -> str | None:
        """`summary` and the command that fixes it (`fix`: see `index_fix_command`), or None."""
        summary = self.summary()
        return None if summary is None else f"{summary} Run `{fix}` {FIX_DOES}."

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json` (the warning is added by whoever knows the command)."""
        return {**asdict(self), "outgrown": self.outgrown, "problems": self.problems()}


def index_fix_command(uri: str | None = None, tenant: str | None = None) -> str:
    """`memlens index` with `--store`/`--tenant` when given, quoted for the shell (a hint
    pasted as shown must not run a hostile store or tenant name).

    >>> index_fix_command("my store", "acme")
    "memlens index --store 'my store' --tenant acme"
    """
    parts = [FIX_COMMAND]
    if uri is not None:
        parts.append(f"--store {shlex.quote(uri)}")
    if tenant is not None:
        parts.append(f"--tenant {shlex.quote(tenant)}")
    return " ".join(parts)


def _gap(column: str, kind: str, unindexed: int, *, missing: bool) -> IndexGap | None:
    if unindexed > UNINDEXED_ROWS:
        return IndexGap(column, kind, unindexed, missing)
    return None


def index_health(store: MemoryStore) -> IndexHealth:
    """The memories table's index coverage and fragments (no row is read: LanceDB keeps
    these figures in its manifest and index metadata)."""
    table = store.tables.memories
    table.checkout_latest()
    rows = int(table.count_rows())
    indexed: dict[str, tuple[str, int]] = {}
    for index in table.list_indices():
        if len(index.columns) == 1:
            stats = table.index_stats(index.name)
            kind = stats.index_type if stats is not None else str(index.index_type)
            unindexed = int(stats.num_unindexed_rows) if stats is not None else 0
            indexed[index.columns[0]] = (kind, unindexed)
    gaps = []
    for column, (kind, unindexed) in sorted(indexed.items()):
        gaps.append(_gap(column, kind, unindexed, missing=False))
    wanted = {**SCALAR_INDEXES, FTS_COLUMN: "FTS"}
    for column, kind in wanted.items():
        if column not in indexed:
            gaps.append(_gap(column, kind, rows, missing=True))
    vector_rows = int(table.count_rows("embedding_status = 'ok'"))
    if VECTOR_COLUMN not in indexed and vector_rows >= VECTOR_THRESHOLD:
        gaps.append(IndexGap(VECTOR_COLUMN, VECTOR_KIND, vector_rows, missing=True))
    fragments = _fragment_stats(table)
    return IndexHealth(rows=rows, vector_rows=vector_rows,
                       fragments=int(fragments.get("num_fragments", 0)),
                       small_fragments=int(fragments.get("num_small_fragments", 0)),
                       gaps=tuple(g for g in gaps if g is not None))


def _fragment_stats(table: Any) -> dict[str, Any]:
    """`table.stats()`'s fragment statistics as a dict (LanceDB 0.40 returns a dict where
    its annotation says `TableStatistics`; both are read)."""
    stats = table.stats()
    fragments = stats["fragment_stats"] if isinstance(stats, dict) else stats.fragment_stats
    if isinstance(fragments, dict):
        return fragments
    return {"num_fragments": fragments.num_fragments,
            "num_small_fragments": fragments.num_small_fragments}
