"""`recall()`: the agent-facing memory call of seeds 000 (herd_recall) and 002 (recall tool).

`recall(query, limit, record_type, project_tag)` runs `search` with the `full` preset, drops
memories this session was already sent (seed 003 ADR-003), renders the rest in an output tier
(ADR-006) and records the access (access_count, last_accessed_at, and a `recall` event with
the session and the query), which `search` never does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.filters import Filter
from memory_core.records import utcnow
from memory_core.retrieval.config import RECALL_PRESET, RankingConfig, preset
from memory_core.retrieval.search import search
from memory_core.retrieval.session_dedup import SessionDedup
from memory_core.retrieval.tiers import check_tier, render_text, render_tier
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class RecallResult:
    """What recall sent, in its tier, and what it held back as already sent."""

    items: list[dict[str, Any]]
    text: str
    tier: str
    skipped_as_sent: list[str] = field(default_factory=list)
    degraded: bool = False
    reasons: list[str] = field(default_factory=list)
    #: False when a `session_id` was given but its sends were not recorded (a read-only
    #: store writes nothing, the session file included): a later recall may repeat them
    session_recorded: bool = True


def session_db_path(store: MemoryStore, settings: Settings | None = None) -> Path:
    """Where the session de-duplication state of this store lives (the memlens cache)."""
    settings = settings or Settings.from_env()
    key = hashlib.sha256(f"{store.uri}|{store.tenant}".encode()).hexdigest()[:16]
    return settings.model_cache / "sessions" / f"{key}.sqlite"


def _scope(store: MemoryStore, record_type: str | None, project_tag: str | None) -> Filter:
    """Seed 002's project_tag names a project tag; herd stores keep projects in a column.

    A project_tag that names a project of this tenant selects that project; otherwise it
    selects memories tagged with it.
    """
    if project_tag is None:
        return Filter(memory_type=record_type)
    if store.count(Filter(project=project_tag)):
        return Filter(memory_type=record_type, project=project_tag)
    return Filter(memory_type=record_type, tags=[project_tag])


def recall(
    store: MemoryStore,
    query: str,
    limit: int = 5,
    record_type: str | None = None,
    project_tag: str | None = None,
    *,
    tier: str = "standard",
    session_id: str | None = None,
    config: RankingConfig | None = None,
    dedup: SessionDedup | None = None,
    now: datetime | None = None,
) -> RecallResult:
    """The best `limit` memories for `query`, not yet sent to `session_id`, in `tier`.

    Access is recorded for what is returned; the session's sent set is persisted at once.
    On a read-only store neither is written: the session's earlier sends are still held
    back, but this call's are not recorded (`session_recorded` is False).
    """
    check_tier(tier)
    now = now or utcnow()
    results = search(store, query, _scope(store, record_type, project_tag),
                     config or preset(RECALL_PRESET), limit=limit * 3, now=now)
    skipped: list[str] = []
    hits = list(results)
    if session_id is not None:
        if store.read_only:
            sent_ids, sent_hashes = SessionDedup.reader(session_db_path(store)).already_sent(
                session_id, now)
        else:
            dedup = dedup or SessionDedup(session_db_path(store))
            sent_ids, sent_hashes = dedup.already_sent(session_id, now)
        kept = []
        for hit in hits:
            if hit.memory.id in sent_ids or hit.memory.content_hash in sent_hashes:
                skipped.append(hit.memory.id)
            else:
                kept.append(hit)
        hits = kept
    hits = hits[:limit]
    if hits and not store.read_only:
        store.record_access([h.memory.id for h in hits], at=now,
                            reason=f"recall: {query[:80]}", session_id=session_id, query=query)
    if session_id is not None and dedup is not None and hits and not store.read_only:
        dedup.mark_sent(session_id, [(h.memory.id, h.memory.content_hash) for h in hits], now)
    items = [render_tier(h.memory, tier, h) for h in hits]
    return RecallResult(items=items, text="\n".join(render_text(i) for i in items), tier=tier,
                        skipped_as_sent=skipped, degraded=results.degraded,
                        reasons=list(results.reasons),
                        session_recorded=session_id is None or not store.read_only)
