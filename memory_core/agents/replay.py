"""Recall replay: what a past recall sent, what the same query sends now, and why they differ.

`replay(store, recall_id)` reads the recall back from its events (and from its audit row
the memories a purge has since deleted events of), runs the same query now with the same
filter, limit, tier and token budget (`recall.select`, reads only: no event, no access
count, no session write; session de-duplication is left out, which the explanations say),
and explains every difference from the audit log (archived, superseded, purged, restored,
edited out of the filter: with batch and actor), the creation time (added since), the decay
prior (then, from the recall's events or reconstructed from the events before it, vs now)
and the ranking config (then, from the events, vs now).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memory_core.agents.recalls import PastRecall, find_recall, sent_ranked
from memory_core.decay import DecayParams, composite
from memory_core.model.errors import InvalidConfigError
from memory_core.model.filters import Filter
from memory_core.model.records import AuditEntry, Memory
from memory_core.model.values import utcnow
from memory_core.retrieval.budget import fit
from memory_core.retrieval.config import PRESETS, RankingConfig
from memory_core.retrieval.recall import render, select
from memory_core.retrieval.rerank import decay_prior
from memory_core.retrieval.results import Hit
from memory_core.retrieval.session_dedup import TTL
from memory_core.store import MemoryStore

if TYPE_CHECKING:
    import polars as pl

#: Audit actions that take a memory out of a recall, with the word replay uses.
_GONE = {"archive": "archived", "supersede": "superseded", "merge": "merged away",
         "purge": "purged", "delete": "deleted"}


@dataclass(frozen=True)
class Difference:
    """One memory sent then or now but not both, or at another rank, and why."""

    memory_id: str
    change: str  # archived, superseded, purged, deleted, added, restored, filter, decay, ...
    rank_then: int | None
    rank_now: int | None
    explanation: str
    batch_id: str | None = None
    actor: str | None = None
    at: datetime | None = None
    decay_then: float | None = None
    decay_now: float | None = None


@dataclass(frozen=True)
class Replay:
    """A past recall next to the same recall now, with every difference explained."""

    recall: PastRecall
    then_ids: tuple[str, ...]
    now_ids: tuple[str, ...]
    now_tokens: int
    now_dropped_for_budget: int
    config_changes: tuple[tuple[str, Any, Any], ...]
    differences: tuple[Difference, ...]
    contents: dict[str, str]

    @property
    def same(self) -> bool:
        """Whether the recall would send the same memories in the same order now."""
        return self.then_ids == self.now_ids

    def to_frame(self) -> pl.DataFrame:
        """The differences, one row each."""
        import polars as pl

        names = [f.name for f in fields(Difference)]
        rows = [asdict(d) for d in self.differences]
        return pl.DataFrame(rows, schema=names if not rows else None, infer_schema_length=None)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json`."""
        return {"recall": self.recall.to_dict(), "then": list(self.then_ids),
                "now": list(self.now_ids), "now_tokens": self.now_tokens,
                "now_dropped_for_budget": self.now_dropped_for_budget, "same": self.same,
                "config_changes": [{"knob": k, "then": a, "now": b}
                                   for k, a, b in self.config_changes],
                "differences": [{**asdict(d), "at": d.at.isoformat() if d.at else None}
                                for d in self.differences]}


def config_then(recall: PastRecall) -> RankingConfig | None:
    """The ranking config the recall used (None for a recall written without one)."""
    data = {k: v for k, v in recall.config.items() if k != "name"}
    return RankingConfig.from_dict(data) if data else None


def config_now(recall: PastRecall) -> RankingConfig:
    """What the same recall ranks with today: its preset as defined now, else its own."""
    then = config_then(recall)
    name = recall.config.get("name")
    if name in PRESETS:
        return PRESETS[str(name)]
    if then is None:
        raise InvalidConfigError("the recall recorded no ranking config; pass one to replay")
    return then


def _last_change(store: MemoryStore, memory_id: str, since: datetime) -> AuditEntry | None:
    rows = [r for r in store.audit.query(target_ids=(memory_id,), since=since, limit=None)
            if r.action not in ("recall", "add")]
    return rows[0] if rows else None


def _by(row: AuditEntry) -> str:
    batch = f" in batch {row.batch_id}" if row.batch_id else ""
    why = f" ({row.reason})" if row.reason else ""
    return f"by {row.actor}{batch} at {row.at:%Y-%m-%d %H:%M} UTC{why}"


def decay_at(store: MemoryStore, memory: Memory, at: datetime, params: DecayParams,
             beta: float, before: set[str]) -> float:
    """The decay prior `memory` had at `at`, its access state rebuilt from its recall events
    (every access is one; those of `before`, a set of event ids, and later ones undone)."""
    events = store.events.query(memory_ids=[memory.id], kinds=("recall", "cite"))
    recalls = [e for e in events if e.event_kind == "recall"]
    later = [e for e in recalls if e.at >= at or e.id in before]
    earlier = [e.at for e in recalls if not (e.at >= at or e.id in before)]
    cites = [e.at for e in events if e.event_kind == "cite" and e.at <= at]
    last = memory.last_accessed_at
    if later:
        last = max(earlier) if earlier else None
    then = replace(memory, access_count=max(0, memory.access_count - len(later)),
                   last_accessed_at=last)
    factors = composite(then, at, params=params, cited_at=max(cites) if cites else None)
    return decay_prior(factors.composite, beta)


def _held_back(store: MemoryStore, recall: PastRecall, memory_id: str) -> datetime | None:
    if recall.session_id is None:
        return None
    sent = [e.at for e in store.events.query(memory_ids=[memory_id], kinds=("recall",),
                                       session_id=recall.session_id,
                                       since=recall.at - TTL, until=recall.at)]
    return max(sent) if sent else None


def _flt(recall: PastRecall) -> Filter:
    return Filter.from_dict(recall.filter)


def _explain(store: MemoryStore, recall: PastRecall, memory_id: str, then_rank: int | None,
             now_rank: int | None, ctx: _Context) -> Difference:
    memory = ctx.memories.get(memory_id)
    if memory is None:
        rows = [r for r in store.audit.query(target_ids=(memory_id,), since=recall.at,
                                             limit=None) if r.action in ("purge", "delete")]
        if rows:
            word = _GONE[rows[0].action]
            return Difference(memory_id, word, then_rank, now_rank,
                              f"{word} since {_by(rows[0])}", rows[0].batch_id,
                              rows[0].actor, rows[0].at)
        return Difference(memory_id, "gone", then_rank, now_rank,
                          "no longer in the store, and no audit row says why")
    d_now = ctx.decay_now.get(memory_id)
    d_then = ctx.decay_then(memory)
    if now_rank is None and memory.status != "active":
        row = _last_change(store, memory_id, recall.at)
        word = memory.status
        text = f"{word} since {_by(row)}" if row else f"{word} (no audit row since the recall)"
        if memory.status == "superseded":
            heirs = [e.source_id for e in store.edges.list(memory_id=memory_id)
                     if e.relation == "supersedes" and e.target_id == memory_id]
            if heirs:
                text += f"; replaced by {', '.join(heirs)}"
        return Difference(memory_id, word, then_rank, now_rank, text,
                          row.batch_id if row else None, row.actor if row else None,
                          row.at if row else None)
    if now_rank is None and not store.count(replace(_flt(recall), ids=[memory_id])):
        row = _last_change(store, memory_id, recall.at)
        return Difference(memory_id, "filter", then_rank, now_rank,
                          "no longer matches the recall's filter"
                          + (f": changed {_by(row)}" if row else ""),
                          row.batch_id if row else None, row.actor if row else None,
                          row.at if row else None)
    if then_rank is None and memory.created_at > recall.at:
        adds = [r for r in store.audit.query(target_ids=(memory_id,), action="add", limit=1)]
        by = f" {_by(adds[0])}" if adds else ""
        return Difference(memory_id, "added", then_rank, now_rank,
                          f"added since the recall (created {memory.created_at:%Y-%m-%d %H:%M}"
                          f" UTC){by}", None, adds[0].actor if adds else None,
                          memory.created_at, None, d_now)
    if then_rank is None:
        row = _last_change(store, memory_id, recall.at)
        if row is not None and row.action in ("restore", "undo", "edit", "correct"):
            return Difference(memory_id, {"restore": "restored"}.get(row.action, row.action),
                              then_rank, now_rank, f"{row.action} since {_by(row)}",
                              row.batch_id, row.actor, row.at, d_then, d_now)
        held = _held_back(store, recall, memory_id)
        if held is not None:
            return Difference(memory_id, "session", then_rank, now_rank,
                              f"held back then: already sent in session {recall.session_id} "
                              f"at {held:%H:%M:%S} UTC (replay does not de-duplicate)")
    reasons: list[tuple[str, str]] = []  # (change, why), the most telling first
    if ctx.config_changes:
        knobs = ", ".join(f"{k} {a!r} -> {b!r}" for k, a, b in ctx.config_changes[:4])
        reasons.append(("config", f"the ranking config changed ({knobs})"))
    if then_rank is not None and now_rank is None and ctx.budget_cut(memory_id):
        reasons.append(("budget", "left out now to stay within the token budget"))
    freed = [i for i in ctx.then_ids[: (then_rank or len(ctx.then_ids) + 1) - 1]
             if i not in ctx.now_ids]
    if freed and (then_rank is None or (now_rank is not None and now_rank < then_rank)):
        reasons.append(("moved", f"moved up: {', '.join(freed)}, sent then above it, is "
                                  f"not sent now"))
    pushed = [i for i in ctx.added if i in ctx.now_ids[: (now_rank or len(ctx.now_ids) + 1) - 1]]
    if pushed and (now_rank is None or (then_rank is not None and now_rank > then_rank)):
        reasons.append(("moved", f"pushed down by memories added since: {', '.join(pushed)}"))
    if d_then is not None and d_now is not None and abs(d_then - d_now) > 1e-6:
        reasons.append(("decay", f"decay moved it: x{d_then:.3f} then, x{d_now:.3f} now"))
    engines = ctx.engine_changes(memory_id)
    if engines:
        reasons.append(("engines", "engine scores changed: " + ", ".join(engines)))
    change = reasons[0][0] if reasons else "moved"
    reasons_text = [why for _, why in reasons]
    return Difference(memory_id, change, then_rank, now_rank,
                      "; ".join(reasons_text) or "ranked differently with the same config and "
                      "decay (scores of other memories changed)", decay_then=d_then,
                      decay_now=d_now)


@dataclass
class _Context:
    then_ids: tuple[str, ...]
    now_ids: tuple[str, ...]
    memories: dict[str, Memory]
    decay_now: dict[str, float]
    stored_decay: dict[str, float]
    config_changes: tuple[tuple[str, Any, Any], ...]
    added: list[str]
    over_budget: set[str]
    rebuild: Any
    engines_then: dict[str, dict[str, float]]
    engines_now: dict[str, dict[str, float]]

    def engine_changes(self, memory_id: str) -> list[str]:
        """"engine then -> now" for each engine whose raw score of the memory moved (both
        known: the recall sent it and it is a candidate now)."""
        then = self.engines_then.get(memory_id, {})
        now = self.engines_now.get(memory_id, {})
        return [f"{e} {then[e]:.3f} -> {now[e]:.3f}" for e in sorted(set(then) & set(now))
                if abs(then[e] - now[e]) > 1e-6]

    def decay_then(self, memory: Memory) -> float | None:
        if memory.id in self.stored_decay:
            return self.stored_decay[memory.id]
        return self.rebuild(memory)  # type: ignore[no-any-return]

    def budget_cut(self, memory_id: str) -> bool:
        return memory_id in self.over_budget


def replay(store: MemoryStore, recall_id: str, *, config: RankingConfig | None = None,
           now: datetime | None = None) -> Replay:
    """The recall `recall_id` then and now, every difference explained; writes nothing.

    `config` is what "now" ranks with (default: the recall's preset as defined today, or
    its own config when it was custom).

    >>> replay(store, result.recall_id).differences  # doctest: +SKIP
    """
    past = find_recall(store, recall_id)
    now = now or utcnow()
    cfg_then = config_then(past)
    cfg_now = config or config_now(past)
    limit = past.limit or len(past.memory_ids)
    ranked = sent_ranked(store, recall_id)
    then_ids = tuple(ranked) if ranked else past.memory_ids
    chosen = select(store, past.query, _flt(past), cfg_now, limit, now=now)
    top = chosen.hits[:limit]
    keep, _, tokens = fit(top, lambda some: render(some, past.tier or "standard")[1],
                          past.max_tokens)
    now_hits: list[Hit] = top[:keep]
    now_ids = tuple(h.memory.id for h in now_hits)
    memories = store.get_many(sorted(set(then_ids) | set(now_ids)))
    events_of = {e.id for e in store.events.query(kinds=("recall",), since=past.at,
                                            until=past.at + timedelta(microseconds=1))
                 if e.metadata.get("recall_id") == recall_id}
    params = (cfg_then or cfg_now).decay
    beta = (cfg_then or cfg_now).decay_weight
    use_decay_then = (cfg_then or cfg_now).use_decay
    ctx = _Context(
        then_ids, now_ids, memories,
        decay_now={h.memory.id: h.decay for h in chosen.hits},
        stored_decay={m: d for m, d in zip(past.memory_ids, past.decays, strict=True)
                      if d is not None},
        config_changes=tuple(cfg_then.diff(cfg_now)) if cfg_then else (),
        added=[i for i in now_ids if i in memories and memories[i].created_at > past.at],
        over_budget={h.memory.id for h in top[keep:]},
        engines_then=dict(zip(past.memory_ids, past.engines, strict=False)),
        engines_now={h.memory.id: {e: ev.score for e, ev in h.engines.items()}
                     for h in chosen.hits},
        rebuild=lambda m: (decay_at(store, m, past.at, params, beta, events_of)
                           if use_decay_then else 1.0))
    diffs = []
    for memory_id in dict.fromkeys(then_ids + now_ids):
        r_then = then_ids.index(memory_id) + 1 if memory_id in then_ids else None
        r_now = now_ids.index(memory_id) + 1 if memory_id in now_ids else None
        if r_then != r_now:
            diffs.append(_explain(store, past, memory_id, r_then, r_now, ctx))
    contents = {i: m.content for i, m in memories.items()}
    return Replay(past, then_ids, now_ids, tokens, len(top) - keep,
                  ctx.config_changes, tuple(diffs), contents)
