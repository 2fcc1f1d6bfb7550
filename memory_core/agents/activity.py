"""What each agent did with the memory, session by session, over time: recalls (query, time,
what was sent, tier, tokens), remembers (the audit's `add` rows by that actor), cites and
corrections (their events).

The actor of an event or an audit row is the agent: `recall(actor=...)`, `cite(actor=...)`,
`memlens mcp --agent` and the store's actor (`MEMLENS_ACTOR`) set it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_core.agents.recalls import group_recalls
from memory_core.model.records import AuditEntry
from memory_core.store import MemoryStore

if TYPE_CHECKING:
    import polars as pl

#: The kinds of activity, in the order tables and plots list them.
KINDS: tuple[str, ...] = ("recall", "remember", "cite", "correct")


@dataclass(frozen=True)
class ActivityEntry:
    """One thing an agent did: a recall (with what it sent), a remember, a cite, a
    correction."""

    at: datetime
    actor: str
    session_id: str | None
    kind: str
    memory_ids: tuple[str, ...]
    query: str | None = None
    recall_id: str | None = None
    tier: str | None = None
    tokens: int | None = None
    note: str | None = None


@dataclass(frozen=True)
class SessionSummary:
    """The counts of one agent's session (`session_id` None: writes outside a session)."""

    actor: str
    session_id: str | None
    recalls: int
    memories_sent: int
    tokens_sent: int
    remembers: int
    cites: int
    corrections: int
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True)
class Activity:
    """Every entry in a time range, newest first, and its summary per agent and session."""

    entries: tuple[ActivityEntry, ...]

    def sessions(self) -> list[SessionSummary]:
        """One summary per (agent, session), the most recently active first."""
        groups: dict[tuple[str, str | None], list[ActivityEntry]] = {}
        for e in self.entries:
            groups.setdefault((e.actor, e.session_id), []).append(e)
        out = []
        for (actor, session), members in groups.items():
            recalls = [e for e in members if e.kind == "recall"]
            out.append(SessionSummary(
                actor, session, len(recalls), sum(len(e.memory_ids) for e in recalls),
                sum(e.tokens or 0 for e in recalls),
                sum(len(e.memory_ids) for e in members if e.kind == "remember"),
                sum(len(e.memory_ids) for e in members if e.kind == "cite"),
                sum(1 for e in members if e.kind == "correct"),
                min(e.at for e in members), max(e.at for e in members)))
        out.sort(key=lambda s: (s.last_at, s.actor), reverse=True)
        return out

    def actors(self) -> list[str]:
        """The agents seen, sorted."""
        return sorted({e.actor for e in self.entries})

    def to_frame(self) -> pl.DataFrame:
        """One row per entry (memory ids joined by spaces)."""
        import polars as pl

        names = [f.name for f in fields(ActivityEntry)]
        rows = [{**asdict(e), "memory_ids": " ".join(e.memory_ids)} for e in self.entries]
        return pl.DataFrame(rows, schema=names if not rows else None, infer_schema_length=None)

    def sessions_frame(self) -> pl.DataFrame:
        """`sessions()` as a frame, one row per agent and session."""
        import polars as pl

        names = [f.name for f in fields(SessionSummary)]
        rows = [asdict(s) for s in self.sessions()]
        return pl.DataFrame(rows, schema=names if not rows else None, infer_schema_length=None)

    def over_time(self, every: str = "1d") -> pl.DataFrame:
        """Counts per time bucket (`every`, a polars duration such as "1h", "1d"), agent and
        kind: columns `at`, `actor`, `kind`, `count` (a recall counts once)."""
        import polars as pl

        frame = self.to_frame().select("at", "actor", "kind")
        if frame.is_empty():
            return pl.DataFrame(schema={"at": pl.Datetime("us", "UTC"), "actor": pl.String,
                                        "kind": pl.String, "count": pl.UInt32})
        return (frame.sort("at").group_by_dynamic("at", every=every, group_by=["actor", "kind"])
                .agg(pl.len().alias("count")).sort("at", "actor", "kind"))


def _remembers(rows: list[AuditEntry], actor: str | None) -> list[ActivityEntry]:
    out = []
    for row in rows:
        if actor is not None and row.actor != actor:
            continue
        docs = row.after if isinstance(row.after, list) else []
        sessions = {d.get("session_id") for d in docs if isinstance(d, dict)}
        session = sessions.pop() if len(sessions) == 1 else None
        out.append(ActivityEntry(row.at, row.actor, session, "remember", tuple(row.target_ids),
                                 note=row.reason))
    return out


def activity(store: MemoryStore, *, since: datetime | None = None,
             until: datetime | None = None, actor: str | None = None) -> Activity:
    """The tenant's agent activity in `[since, until)`, of one `actor` or of all.

    >>> activity(store).sessions()[0].recalls  # doctest: +SKIP
    3
    """
    events = [e for e in store.events.query(kinds=("recall", "cite", "correct"), since=since,
                                      until=until) if actor is None or e.actor == actor]
    entries: list[ActivityEntry] = []
    for r in group_recalls(events):
        entries.append(ActivityEntry(r.at, r.actor, r.session_id, "recall", r.memory_ids,
                                     query=r.query, recall_id=r.recall_id, tier=r.tier,
                                     tokens=r.tokens))
    for e in events:
        if e.event_kind == "cite":
            entries.append(ActivityEntry(e.at, e.actor, e.session_id, "cite", (e.memory_id,),
                                         query=e.query))
        elif e.event_kind == "correct":
            meta: dict[str, Any] = dict(e.metadata)
            what = meta.get("verdict") or meta.get("kind")
            entries.append(ActivityEntry(e.at, e.actor, e.session_id, "correct",
                                         (e.memory_id,), query=e.query,
                                         note=str(what) if what else None))
    adds = store.audit.query(action="add", since=since, until=until, limit=None)
    entries.extend(_remembers(adds, actor))
    entries.sort(key=lambda e: (e.at, KINDS.index(e.kind)), reverse=True)
    return Activity(tuple(entries))
