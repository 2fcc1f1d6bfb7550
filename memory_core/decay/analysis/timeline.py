"""`memory_timeline`: one memory's history (created, recalls, cites, corrections, edges,
status changes and edits) and its decay curve replayed from creation (docs/design/events.md),
for the Decay page's per-memory view.

The curve is the composite as it was at each moment: t counts from the latest recall before
the moment (the clock resets at each recall), the access count is today's minus the recalls
after the moment, and the citation factor holds for `citation_days` after each cite. Only what
happened up to the decay clock `as_of` counts; after it the memory is assumed left alone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from memory_core.decay import DecayParams
from memory_core.decay.analysis.curves import check_params
from memory_core.decay.analysis.frame import clock
from memory_core.decay.analysis.model import Timeline, TimelineEvent
from memory_core.model.errors import InvalidConfigError
from memory_core.model.records import AuditEntry, Edge, Event, Memory
from memory_core.model.stability import usable_stability
from memory_core.store import MemoryStore

#: The longest horizon a curve runs past the clock (days): ten years.
MAX_HORIZON_DAYS = 3650
#: Audit actions that change a memory's status (or undo one), as the timeline words them.
#: A correction is not one: it never changes status, and its `correct` event (one per
#: correction; its batch writes two audit rows naming the memory) is what the timeline shows.
STATUS_ACTIONS = {"archive": "archived", "restore": "restored", "supersede": "superseded",
                  "merge": "merged", "delete": "deleted", "purge": "purged", "undo": "undone"}
_KIND_ORDER = {"created": 0, "edit": 1, "status": 2, "edge": 3, "recall": 4, "cite": 5,
               "correct": 6}
_US = timedelta(microseconds=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAY_US = 86_400 * 1_000_000


def _event(event: Event) -> TimelineEvent:
    """A recall, cite or correct event of the events table as a timeline entry."""
    meta = dict(event.metadata)
    data = {"event_id": event.id, "session_id": event.session_id, "query": event.query, **meta}
    said = f": {event.query}" if event.query else ""
    if event.event_kind == "recall":
        detail = f"recalled{said}"
    elif event.event_kind == "cite":
        detail = f"cited in an answer{said}"
    else:
        verdict = meta.get("verdict")
        detail = f"corrected ({verdict})" if verdict else "corrected"
    return TimelineEvent(at=event.at, kind=event.event_kind, detail=detail, actor=event.actor,
                         resets=event.event_kind == "recall", data=data)


def _edge(edge: Edge, memory_id: str) -> TimelineEvent:
    outgoing = edge.source_id == memory_id
    other = edge.target_id if outgoing else edge.source_id
    detail = f"{edge.relation} {'to' if outgoing else 'from'} {other}"
    if edge.status != "active":
        detail += f" (now {edge.status})"
    return TimelineEvent(at=edge.created_at, kind="edge", detail=detail, data={
        "edge_id": edge.id, "relation": edge.relation, "other_id": other,
        "direction": "out" if outgoing else "in", "strength": edge.strength,
        "status": edge.status})


def _audit(entry: AuditEntry) -> TimelineEvent | None:
    """An edit, a status change or an edge removed; None for the audit rows the timeline
    shows from other tables (add, import, recall, add_edges, link...)."""
    data: dict[str, Any] = {"audit_id": entry.id, "action": entry.action,
                            "batch_id": entry.batch_id, "reason": entry.reason}
    why = f" ({entry.reason})" if entry.reason else ""
    if entry.action == "edit":
        return TimelineEvent(at=entry.at, kind="edit", detail=f"edited{why}", actor=entry.actor,
                             data=data)
    if entry.action == "unlink":  # the edge is gone from the edges table: only this says so
        return TimelineEvent(at=entry.at, kind="edge", detail=f"an edge removed{why}",
                             actor=entry.actor, data=data)
    if entry.action in STATUS_ACTIONS:
        return TimelineEvent(at=entry.at, kind="status",
                             detail=f"{STATUS_ACTIONS[entry.action]}{why}", actor=entry.actor,
                             data=data)
    return None


def _inferred_access(memory: Memory, recalls: list[datetime], as_of: datetime
                     ) -> TimelineEvent | None:
    """A reset at `last_accessed_at` when no recall event accounts for it (stores written
    before the events table, imported memories): the frame decays from it, so must the
    curve."""
    last = memory.last_accessed_at
    if last is None or last > as_of or (recalls and max(recalls) >= last - timedelta(seconds=1)):
        return None
    return TimelineEvent(at=last, kind="recall", detail="last access (no recall event kept)",
                         resets=True, data={"inferred": True})


def timeline_events(store: MemoryStore, memory: Memory, as_of: datetime
                    ) -> tuple[TimelineEvent, ...]:
    """Everything that happened to `memory` up to `as_of`, oldest first."""
    created = TimelineEvent(at=memory.created_at, kind="created",
                            detail=f"created ({memory.memory_type}, {memory.importance})",
                            data={"source": memory.source, "session_id": memory.session_id})
    found = [created]
    found += [_event(e) for e in store.events.query(memory_ids=[memory.id])]
    found += [_edge(e, memory.id) for e in store.edges.list(memory_id=memory.id,
                                                      include_inactive=True)]
    found += [x for x in map(_audit, store.audit.query(target_ids=[memory.id], limit=None))
              if x is not None]
    found = [e for e in found if e.at <= as_of]
    inferred = _inferred_access(memory, [e.at for e in found if e.kind == "recall"], as_of)
    if inferred is not None:
        found.append(inferred)
    return tuple(sorted(found, key=lambda e: (e.at, _KIND_ORDER.get(e.kind, 9), e.detail)))


def _us(values: list[datetime]) -> np.ndarray:
    return np.asarray(sorted((v - _EPOCH) // _US for v in values), dtype=np.int64)


def _sample_points(start_us: int, end_us: int, resets: np.ndarray, as_of_us: int
                   ) -> np.ndarray:
    """Daily from creation to the end, the end itself, the clock, and each reset with the
    instant before it (so a plot shows the drop, then the jump)."""
    daily = np.arange(start_us, max(start_us, end_us) + 1, _DAY_US, dtype=np.int64)
    extra = [np.asarray([end_us, as_of_us], dtype=np.int64), resets, resets - 1]
    points = np.unique(np.concatenate([daily, *extra]))
    return points[(points >= start_us) & (points <= max(start_us, end_us))]


def decay_curve(memory: Memory, events: tuple[TimelineEvent, ...], *, as_of: datetime,
                params: DecayParams, horizon_days: int, recalls_after: list[datetime]
                ) -> Any:
    """The curve of `memory` as a polars frame: `at`, `day`, `retrievability`, `composite`,
    and the factors that change with time (`access_count`, `usage`, `citation`).

    `recalls_after` are the recall events after `as_of`: today's access count includes
    them, so they are taken off every point, like those after each point."""
    import polars as pl

    start = (memory.created_at - _EPOCH) // _US
    as_of_us = (as_of - _EPOCH) // _US
    end = as_of_us + horizon_days * _DAY_US
    resets = _us([e.at for e in events if e.resets])
    cites = _us([e.at for e in events if e.kind == "cite"])
    points = _sample_points(start, end, resets, as_of_us)
    done = np.searchsorted(resets, points, side="right")  # recalls at or before each point
    last = np.concatenate([[start], resets])[done]  # the latest of them, else creation
    days = np.maximum(points - last, 0) / 1e6 / 86400.0
    later = (len(resets) - done) + len(recalls_after)
    count = np.maximum(memory.access_count - later, 0)
    cited = np.searchsorted(cites, points, side="right")
    latest_cite = np.concatenate([[0], cites])[cited]  # 0: never cited by then (unused)
    age = (points - latest_cite) / 1e6 / 86400.0
    citation = np.where((cited > 0) & (age <= params.citation_days), params.citation_boost,
                        1.0)
    if memory.importance == "constitutional":
        r = usage = anchor = citation = np.ones(len(points))
    else:
        stability = usable_stability(memory.stability, memory.memory_type,
                                     memory.importance, memory_id=memory.id)
        r = (1.0 + params.fsrs_factor * days / (stability * params.stability_scale)) ** -0.5
        usage = np.minimum(params.usage_cap, 1.0 + params.usage_coefficient * np.log1p(count))
        anchor = np.full(len(points), params.tier_anchor.get(memory.importance, 1.0))
    at = pl.Series("at", points, dtype=pl.Int64).cast(pl.Datetime("us")).dt.replace_time_zone(
        "UTC")
    return pl.DataFrame({
        "at": at, "day": (points - start) / 1e6 / 86400.0, "retrievability": r,
        "composite": r * usage * anchor * citation, "access_count": count.astype(np.int64),
        "usage": usage, "citation": citation})


def memory_timeline(store: MemoryStore, memory_id: str, *, as_of: datetime | None = None,
                    params: DecayParams | None = None, horizon_days: int = 90) -> Timeline:
    """The history of memory `memory_id` (any status; `MemoryNotFoundError` if this tenant
    has none) up to `as_of` (now by default), oldest first, and its decay curve sampled
    daily from creation to `horizon_days` after `as_of`, with the clock reset at each
    recall.

    Example: `memory_timeline(store, memory_id, horizon_days=30).curve`.
    """
    params = params or DecayParams()
    check_params(params)
    if isinstance(horizon_days, bool) or not isinstance(horizon_days, int) \
            or not 0 <= horizon_days <= MAX_HORIZON_DAYS:
        raise InvalidConfigError(f"horizon_days must be a whole number of days in "
                                 f"0..{MAX_HORIZON_DAYS}, got {horizon_days!r}")
    as_of = clock(as_of)
    memory = store.get(memory_id)
    events = timeline_events(store, memory, as_of)
    after = [e.at for e in store.events.query(memory_ids=[memory.id], kinds=("recall",),
                                        since=as_of + _US)]
    curve = decay_curve(memory, events, as_of=as_of, params=params,
                        horizon_days=horizon_days, recalls_after=after)
    return Timeline(memory_id=memory.id, events=events, curve=curve, as_of=as_of,
                    never_decays=memory.importance == "constitutional")
