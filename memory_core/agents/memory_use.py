"""How the memory is used: the memories recalled most, those recalled but never cited, and
the active memories no recall sent in the last N days (candidates to archive or reword)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memory_core.model.errors import InvalidConfigError
from memory_core.model.values import utcnow
from memory_core.store import MemoryStore

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class MemoryUseRow:
    """One memory's use: how often recalled and cited, and when last."""

    memory_id: str
    memory_type: str
    content: str
    recalls: int
    cites: int
    last_recalled: datetime | None
    last_cited: datetime | None


@dataclass(frozen=True)
class MemoryUse:
    """The three lists of the Agents page's memory-use panel, each most telling first."""

    days: int
    recalled_most: tuple[MemoryUseRow, ...]
    recalled_never_cited: tuple[MemoryUseRow, ...]
    not_recalled: tuple[MemoryUseRow, ...]

    @staticmethod
    def frame(rows: tuple[MemoryUseRow, ...]) -> pl.DataFrame:
        """`rows` as a polars frame, one column per field."""
        import polars as pl

        names = [f.name for f in fields(MemoryUseRow)]
        data = [asdict(r) for r in rows]
        return pl.DataFrame(data, schema=names if not data else None, infer_schema_length=None)

    def to_frame(self) -> pl.DataFrame:
        """All three lists in one frame, with a `list` column naming the list."""
        import polars as pl

        parts = [self.frame(rows).with_columns(pl.lit(name).alias("list"))
                 for name, rows in (("recalled_most", self.recalled_most),
                                    ("recalled_never_cited", self.recalled_never_cited),
                                    ("not_recalled", self.not_recalled))]
        return pl.concat(parts, how="diagonal_relaxed")


def _short(text: str, width: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def memory_use(store: MemoryStore, *, days: int = 30, limit: int = 20,
               now: datetime | None = None) -> MemoryUse:
    """The memories recalled most (ever), recalled but never cited (ever), and the active
    memories older than `days` days that no recall sent in them (oldest first), `limit` of
    each."""
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise InvalidConfigError(f"days must be a whole number >= 1, got {days!r}")
    now = now or utcnow()
    recalled = store.events.latest("recall")
    cited = store.events.latest("cite")
    recalls = dict(zip(recalled["memory_id"].to_pylist(),
                       zip(recalled["count"].to_pylist(), recalled["at"].to_pylist(),
                           strict=True), strict=True))
    cites = dict(zip(cited["memory_id"].to_pylist(),
                     zip(cited["count"].to_pylist(), cited["at"].to_pylist(), strict=True),
                     strict=True))
    active = store.scan(["id", "memory_type", "content", "created_at"]).to_pylist()
    memories = {r["id"]: r for r in active}
    memories.update({i: {"id": i, "memory_type": m.memory_type, "content": m.content,
                         "created_at": m.created_at}
                     for i, m in store.get_many([i for i in recalls if i not in memories]).items()})

    def row(memory_id: str) -> MemoryUseRow:
        m = memories[memory_id]
        n, last = recalls.get(memory_id, (0, None))
        c, last_cite = cites.get(memory_id, (0, None))
        return MemoryUseRow(memory_id, m["memory_type"], _short(m["content"]), n, c, last,
                            last_cite)

    known = [i for i in recalls if i in memories]
    most = sorted(known, key=lambda i: (-recalls[i][0], i))[:limit]
    uncited = sorted((i for i in known if i not in cites),
                     key=lambda i: (-recalls[i][0], i))[:limit]
    cutoff = now - timedelta(days=days)
    # a memory younger than `days` has not had the time to be recalled in them
    stale = sorted((r for r in active if r["created_at"] <= cutoff
                    and (r["id"] not in recalls or recalls[r["id"]][1] < cutoff)),
                   key=lambda r: (r["created_at"], r["id"]))[:limit]
    return MemoryUse(days, tuple(row(i) for i in most), tuple(row(i) for i in uncited),
                     tuple(row(r["id"]) for r in stale))
