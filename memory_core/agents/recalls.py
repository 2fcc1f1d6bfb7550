"""Past recalls read back from their `recall` events (and, for purged memories, the audit).

`recall()` writes one event per memory it sent, all carrying one `recall_id`; a recall is
those events grouped. Events written before recall ids existed are grouped by their time,
session and query, and have no id (`recall_id` None): they show in the activity but cannot
be replayed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory_core.model.errors import RecallNotFoundError
from memory_core.model.records import Event
from memory_core.model.untrusted import shown
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class PastRecall:
    """One recall as its events recorded it: what was sent, best first."""

    recall_id: str | None
    at: datetime
    actor: str
    session_id: str | None
    query: str
    memory_ids: tuple[str, ...]
    scores: tuple[float | None, ...]
    decays: tuple[float | None, ...]
    engines: tuple[dict[str, float], ...] = ()
    tier: str | None = None
    limit: int | None = None
    tokens: int | None = None
    max_tokens: int | None = None
    dropped_for_budget: int = 0
    filter: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json`."""
        return {"recall_id": self.recall_id, "at": self.at.isoformat(), "actor": self.actor,
                "session_id": self.session_id, "query": self.query,
                "memory_ids": list(self.memory_ids), "tier": self.tier, "limit": self.limit,
                "tokens": self.tokens, "max_tokens": self.max_tokens,
                "dropped_for_budget": self.dropped_for_budget, "filter": self.filter,
                "config": self.config}


def _key(event: Event) -> str:
    rid = event.metadata.get("recall_id")
    return f"id:{rid}" if rid else f"at:{event.at.isoformat()}|{event.session_id}|{event.query}"


def group_recalls(events: Iterable[Event]) -> list[PastRecall]:
    """`recall` events grouped into recalls, newest first."""
    groups: dict[str, list[Event]] = {}
    for event in events:
        if event.event_kind == "recall":
            groups.setdefault(_key(event), []).append(event)
    out = []
    for members in groups.values():
        members.sort(key=lambda e: (e.metadata.get("rank") or 0, e.id))
        head = members[0]
        meta = head.metadata
        out.append(PastRecall(
            recall_id=meta.get("recall_id"), at=head.at, actor=head.actor,
            session_id=head.session_id, query=head.query or "",
            memory_ids=tuple(e.memory_id for e in members),
            scores=tuple(e.metadata.get("score") for e in members),
            decays=tuple(e.metadata.get("decay") for e in members),
            engines=tuple(dict(e.metadata.get("engines") or {}) for e in members),
            tier=meta.get("tier"), limit=meta.get("limit"), tokens=meta.get("tokens"),
            max_tokens=meta.get("max_tokens"),
            dropped_for_budget=int(meta.get("dropped_for_budget") or 0),
            filter=dict(meta.get("filter") or {}), config=dict(meta.get("config") or {})))
    out.sort(key=lambda r: (r.at, r.recall_id or ""), reverse=True)
    return out


def past_recalls(store: MemoryStore, *, since: datetime | None = None,
                 until: datetime | None = None, limit: int | None = None) -> list[PastRecall]:
    """The tenant's recalls in `[since, until)`, newest first."""
    return group_recalls(store.events.query(kinds=("recall",), since=since, until=until))[:limit]


def sent_ranked(store: MemoryStore, recall_id: str) -> list[str] | None:
    """What the recall sent, best first, from its audit row (which a purge leaves: it names
    ids only); None when the row has no list (a store written before recall ids)."""
    for entry in store.audit.query(action="recall", limit=None):
        after = entry.after if isinstance(entry.after, dict) else {}
        if after.get("recall_id") == recall_id:
            return [str(i) for i in after.get("ranked") or []]
    return None


def find_recall(store: MemoryStore, recall_id: str) -> PastRecall:
    """The recall `recall_id` of this tenant; `RecallNotFoundError` if it has no event."""
    found = [r for r in group_recalls(store.events.query(kinds=("recall",)))
             if r.recall_id == recall_id]
    if not found:
        raise RecallNotFoundError(
            f"no recall with id {shown(recall_id)} in tenant {shown(store.tenant)}; list "
            f"recall ids with `memlens agents --recalls`")
    return found[0]
