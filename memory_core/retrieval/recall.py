"""`recall()`: the agent-facing memory call (herd's `herd_recall`, Make_Skills' recall tool).

`recall(query, limit, record_type, project_tag)` runs `search` with the `full` preset under
Make_Skills' scope AND-ed with an optional `Filter`, drops memories this session was already
sent (session de-duplication, ADR-003 in docs/design/seeds.md), renders the rest in an
output tier (ADR-006, docs/design/retrieval.md), drops whole items,
lowest ranked first, until the text fits `max_tokens`, and records the access
(access_count, last_accessed_at), which `search` never does.

Each memory sent writes one `recall` event whose metadata lets the Agents page replay the
call (`memory_core.agents.replay`): `recall_id`, `rank`, `score`, `decay`, `usage`, `engines`
(each engine's raw score), `tier`, `limit`, `tokens`, `max_tokens`, `filter` (the effective
`Filter.to_dict()`), `config` (`RankingConfig.to_dict()` plus its preset `name`) and
`dropped_for_budget`. A recall that sends nothing writes no event (an event names a
memory): it cannot be replayed.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.model.config import Settings
from memory_core.model.filters import Filter
from memory_core.model.values import utcnow
from memory_core.retrieval.budget import check_budget, fit
from memory_core.retrieval.config import PRESETS, RECALL_PRESET, RankingConfig, preset
from memory_core.retrieval.results import Hit
from memory_core.retrieval.scope import both, seed_scope
from memory_core.retrieval.search import search
from memory_core.retrieval.session_dedup import SessionDedup
from memory_core.retrieval.tiers import check_tier, render_text, render_tier
from memory_core.store import MemoryStore


@dataclass(frozen=True)
class RecallResult:
    """What recall sent, in its tier, and what it held back as already sent or over budget."""

    items: list[dict[str, Any]]
    text: str
    tier: str
    skipped_as_sent: list[str] = field(default_factory=list)
    degraded: bool = False
    reasons: list[str] = field(default_factory=list)
    #: False when a `session_id` was given but its sends were not recorded (a read-only
    #: store writes nothing, the session file included): a later recall may repeat them
    session_recorded: bool = True
    #: one per call; the `recall_id` of its events (`memlens replay RECALL_ID`)
    recall_id: str = ""
    #: tokens of `text` (`count_tokens`, the shipped tokenizer)
    tokens: int = 0
    #: items left out, lowest ranked first, so that `text` fits `max_tokens`
    dropped_for_budget: int = 0


@dataclass(frozen=True)
class Selection:
    """The hits a recall would send before any session de-duplication, and why degraded."""

    hits: list[Hit]
    filter: Filter | None
    config: RankingConfig
    degraded: bool = False
    reasons: list[str] = field(default_factory=list)


def session_db_path(store: MemoryStore, settings: Settings | None = None) -> Path:
    """Where the session de-duplication state of this store lives (the memlens cache)."""
    settings = settings or Settings.from_env()
    key = hashlib.sha256(f"{store.uri}|{store.tenant}".encode()).hexdigest()[:16]
    return settings.model_cache / "sessions" / f"{key}.sqlite"


def config_doc(config: RankingConfig) -> dict[str, Any]:
    """`config` as JSON-friendly data with the name of the preset it equals ("custom")."""
    name = next((n for n, p in PRESETS.items() if p == config), "custom")
    return {"name": name, **config.to_dict()}


def select(store: MemoryStore, query: str, flt: Filter | None, config: RankingConfig,
           limit: int, *, now: datetime) -> Selection:
    """The ranked candidates of a recall (3 x `limit`, room for de-duplication); reads only.

    `flt` None is a scope that matches nothing (`scope.both`)."""
    if flt is None:
        return Selection([], None, config)
    results = search(store, query, flt, config, limit=limit * 3, now=now)
    return Selection(list(results), flt, config, results.degraded, list(results.reasons))


def render(hits: Sequence[Hit], tier: str) -> tuple[list[dict[str, Any]], str]:
    """The items of `hits` in `tier` and the text recall sends."""
    items = [render_tier(h.memory, tier, h) for h in hits]
    return items, "\n".join(render_text(i) for i in items)


def _sent(hit: Hit) -> dict[str, Any]:
    """What a recall event keeps of one hit: its score, decay prior, usage factor and each
    engine's raw score (replay compares them with today's)."""
    return {"score": hit.score, "decay": hit.decay,
            "usage": hit.decay_factors.usage if hit.decay_factors else None,
            "engines": {e: ev.score for e, ev in hit.engines.items()}}


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
    scope: Filter | None = None,
    max_tokens: int | None = None,
    actor: str | None = None,
) -> RecallResult:
    """The best `limit` memories for `query`, not yet sent to `session_id`, in `tier`, in at
    most `max_tokens` tokens; `scope` is AND-ed with `record_type` / `project_tag`.

    Access is recorded for what is returned, as `recall` events by `actor` (the store's
    actor by default); the session's sent set is persisted at once. On a read-only store
    neither is written: the session's earlier sends are still held back, but this call's are
    not recorded (`session_recorded` is False).

    >>> # recall(store, "which database?", scope=Filter(tags=["db"]), max_tokens=300)
    """
    check_tier(tier)
    check_budget(max_tokens)
    now = now or utcnow()
    cfg = config or preset(RECALL_PRESET)
    chosen = select(store, query, both(seed_scope(store, record_type, project_tag), scope,
                                       store.tenant), cfg, limit, now=now)
    if dedup is None and session_id is not None and not store.read_only:
        dedup = SessionDedup(session_db_path(store))
    with dedup.together() if dedup is not None else nullcontext():
        return _send(store, query, limit, chosen, cfg, tier=tier, session_id=session_id,
                     dedup=dedup, now=now, max_tokens=max_tokens, actor=actor)


def _send(store: MemoryStore, query: str, limit: int, chosen: Selection,
          cfg: RankingConfig, *, tier: str, session_id: str | None,
          dedup: SessionDedup | None, now: datetime, max_tokens: int | None,
          actor: str | None) -> RecallResult:
    """What `recall` sends of `chosen`: de-duplicated, within the budget, recorded."""
    skipped: list[str] = []
    hits = chosen.hits
    if session_id is not None:
        if store.read_only:
            sent_ids, sent_hashes = SessionDedup.reader(session_db_path(store)).already_sent(
                session_id, now)
        else:
            assert dedup is not None  # made by recall for a writable store
            sent_ids, sent_hashes = dedup.already_sent(session_id, now)
        kept = []
        for hit in hits:
            if hit.memory.id in sent_ids or hit.memory.content_hash in sent_hashes:
                skipped.append(hit.memory.id)
            else:
                kept.append(hit)
        hits = kept
    hits = hits[:limit]
    keep, text, tokens = fit(hits, lambda some: render(some, tier)[1], max_tokens)
    dropped = len(hits) - keep
    hits = hits[:keep]
    recall_id = str(uuid.uuid4())
    if hits and not store.read_only:
        store.record_access(
            [h.memory.id for h in hits], at=now, reason=f"recall: {query[:80]}",
            session_id=session_id, query=query, actor=actor,
            metadata={"recall_id": recall_id, "tier": tier, "limit": limit, "tokens": tokens,
                      "max_tokens": max_tokens,
                      "filter": chosen.filter.to_dict() if chosen.filter else None,
                      "config": config_doc(cfg), "dropped_for_budget": dropped},
            per_memory={h.memory.id: _sent(h) for h in hits})
    if session_id is not None and dedup is not None and hits and not store.read_only:
        dedup.mark_sent(session_id, [(h.memory.id, h.memory.content_hash) for h in hits], now)
    items, _ = render(hits, tier)
    return RecallResult(items=items, text=text, tier=tier, skipped_as_sent=skipped,
                        degraded=chosen.degraded, reasons=chosen.reasons,
                        session_recorded=session_id is None or not store.read_only,
                        recall_id=recall_id, tokens=tokens, dropped_for_budget=dropped)
