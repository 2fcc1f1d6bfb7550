"""Drafts into records: timestamps, tiers, sources, access histories, archiving, then frozen
`Memory` and `Edge` values built through `Memory.new` / `Edge.new` (so stability defaults
follow `memory_core.model.stability`)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from memory_core.model.records import Edge, Memory
from memory_core.model.stability import default_stability
from tools.demo_corpus.builder import Builder, Draft
from tools.demo_corpus.world import END, TENANT

LAST_SECOND = END - timedelta(seconds=1)
DAY_END_MARGIN = timedelta(minutes=30)

#: memory_type -> ((tier, probability), ...) for memories whose tier was not set by their plan.
TIER_ODDS: dict[str, tuple[tuple[str, float], ...]] = {
    "decision": (("critical", 0.08), ("important", 0.45)),
    "decision_context": (("important", 0.3),),
    "lesson": (("critical", 0.03), ("important", 0.4)),
    "principle": (("important", 0.45),),
    "pattern": (("important", 0.3),),
    "preference": (("important", 0.3),),
    "insight": (("important", 0.25),),
    "reflection": (("important", 0.2),),
    "learning": (("important", 0.15),),
    "topic": (("important", 0.1),),
    "event": (("temporary", 0.3),),
    "thread": (("temporary", 0.3),),
    "observation": (("important", 0.06), ("temporary", 0.08)),
    "fact": (("important", 0.12), ("deprecated", 0.06)),
    "session_summary": (("temporary", 0.2),),
    "skill_idea": (("temporary", 0.15),),
}
#: memory_type -> ((source, weight), ...)
SOURCE_ODDS: dict[str, tuple[tuple[str, float], ...]] = {
    "observation": (("code_analysis", 0.45), ("agent_inference", 0.3), ("transcript", 0.25)),
    "thread": (("transcript", 0.8), ("user_statement", 0.2)),
    "decision": (("user_statement", 0.6), ("transcript", 0.4)),
    "decision_context": (("transcript", 0.7), ("agent_inference", 0.3)),
    "lesson": (("agent_inference", 0.7), ("user_statement", 0.3)),
    "learning": (("agent_inference", 0.7), ("user_statement", 0.3)),
    "fact": (("code_analysis", 0.6), ("user_statement", 0.4)),
    "event": (("transcript", 0.5), ("code_analysis", 0.5)),
    "topic": (("agent_inference", 0.5), ("transcript", 0.5)),
}
CONFIDENCE = {"user_statement": (0.85, 1.0), "code_analysis": (0.8, 1.0),
              "transcript": (0.7, 0.95), "agent_inference": (0.5, 0.9)}
#: Probability that a memory was never recalled, and a multiplier on recall counts.
NEVER_RECALLED = {"thread": 0.6, "observation": 0.55, "event": 0.7, "session_summary": 0.35,
                  "fact": 0.45, "topic": 0.5, "skill_idea": 0.6}
RECALL_WEIGHT = {"decision": 3.0, "principle": 3.0, "preference": 3.0, "identity": 4.0,
                 "pattern": 2.5, "lesson": 2.0, "decision_context": 1.5}
#: relation -> (strength range, decay-rate range)
EDGE_TRAITS = {
    "caused": ((0.6, 0.95), (0.002, 0.01)), "supports": ((0.5, 0.9), (0.002, 0.01)),
    "derived_from": ((0.7, 1.0), (0.0, 0.005)), "supersedes": ((0.9, 1.0), (0.0, 0.0)),
    "contradicts": ((0.5, 0.8), (0.005, 0.015)), "enabled": ((0.4, 0.8), (0.002, 0.01)),
    "relates_to": ((0.3, 0.7), (0.01, 0.02)), "uses": ((0.4, 0.8), (0.002, 0.01)),
    "improves": ((0.4, 0.8), (0.002, 0.01)),
}


def assign_times(b: Builder) -> None:
    """Spread each session's memories, in planning order, over the rest of its day."""
    rng = b.rng
    for session in b.sessions:
        drafts = b.by_session[session.id]
        budget = (session.day_end - DAY_END_MARGIN - session.start).total_seconds()
        step = min(540.0, budget / (len(drafts) + 1))
        t = session.start
        for draft in drafts:
            t += timedelta(seconds=int(step * rng.uniform(0.5, 1.5)))
            draft.created_at = min(t, session.day_end)


def _tier(b: Builder, draft: Draft) -> str:
    if draft.importance:
        return draft.importance
    if draft.role == "incident":
        return "critical" if b.chance(0.5) else "important"
    if draft.status == "superseded" and b.chance(0.5):
        return "deprecated"
    r = b.rng.random()
    for tier, p in TIER_ODDS.get(draft.memory_type, ()):
        if r < p:
            return tier
        r -= p
    return "normal"


def _source(b: Builder, draft: Draft) -> str:
    if draft.source:
        return draft.source
    odds = SOURCE_ODDS.get(draft.memory_type, (("agent_inference", 1.0),))
    return b.rng.choices([s for s, _ in odds], [w for _, w in odds])[0]


def _archive(b: Builder, draft: Draft, tier: str) -> bool:
    """Old chatter is archived: stale threads, temporary events, deprecated facts."""
    if draft.status != "active" or draft.role == "duplicate" or draft.importance:
        return False
    age_days = (END - _created(draft)).days
    odds = {
        "thread": 0.2 if age_days > 45 else 0.0,
        "event": 0.5 if tier == "temporary" else 0.0,
        "session_summary": 0.12 if age_days > 100 else 0.0,
        "observation": 0.03,
        "fact": 0.7 if tier == "deprecated" else 0.0,
        "skill_idea": 0.1,
    }
    return b.chance(odds.get(draft.memory_type, 0.0))


def _created(draft: Draft) -> datetime:
    if draft.created_at is None:
        raise ValueError(f"draft {draft.id} has no time; run assign_times first")
    return draft.created_at


def _between(b: Builder, start: datetime, end: datetime) -> datetime:
    seconds = max(0, int((end - start).total_seconds()))
    return start + timedelta(seconds=b.rng.randint(0, seconds))


def _access(b: Builder, draft: Draft, tier: str) -> tuple[int, datetime | None]:
    created = _created(draft)
    if LAST_SECOND - created < timedelta(minutes=10):
        return 0, None
    if tier == "constitutional":
        weight = 10.0
    else:
        if b.chance(NEVER_RECALLED.get(draft.memory_type, 0.3)):
            return 0, None
        weight = RECALL_WEIGHT.get(draft.memory_type, 1.0)
    # Pareto: most recalled memories are recalled a few times, a handful very often.
    count = min(999, max(1, int(b.rng.paretovariate(1.3) * weight)))
    # Recent recalls are likelier: skew the last access towards the end of the window.
    span = (LAST_SECOND - created).total_seconds()
    last = created + timedelta(seconds=max(60, int(span * math.sqrt(b.rng.random()))))
    return count, min(last, LAST_SECOND)


def build_memories(b: Builder) -> tuple[Memory, ...]:
    """Freeze every draft into a `Memory` (in planning order)."""
    memories = []
    for draft in b.drafts:
        created = _created(draft)
        tier = _tier(b, draft)
        source = _source(b, draft)
        if _archive(b, draft, tier):
            draft.status = "archived"
        updated = created
        if draft.replaced_by is not None:
            updated = max(created, _created(draft.replaced_by))
        elif draft.status == "archived":
            updated = _between(b, created, LAST_SECOND)
        elif b.chance(0.04):
            updated = _between(b, created, LAST_SECOND)
        low, high = CONFIDENCE[source]
        confidence = 1.0 if tier == "constitutional" else round(b.rng.uniform(low, high), 2)
        count, last = _access(b, draft, tier)
        stability = None
        if draft.status == "superseded":
            # A corrected memory's stability is halved (docs/design/decay.md, corrections).
            stability = default_stability(draft.memory_type, tier) * 0.5
        memories.append(Memory.new(
            draft.content, draft.memory_type, id=draft.id, created_at=created,
            updated_at=updated, importance=tier, stability=stability, tags=draft.tags,
            metadata=draft.metadata, status=draft.status, tenant=TENANT,
            project=draft.session.project, repo=draft.repo, agent=draft.session.agent,
            session_id=draft.session.id, why=draft.why, source=source,
            confidence=confidence, access_count=count, last_accessed_at=last,
        ))
    return tuple(memories)


def build_edges(b: Builder) -> tuple[Edge, ...]:
    """Freeze the planned links into `Edge`s: no self-loops, no repeated (source, target,
    relation), created no earlier than either endpoint."""
    edges = []
    seen: set[tuple[str, str, str]] = set()
    for link in b.links:
        key = (link.source.id, link.target.id, link.relation)
        if key in seen or link.source.id == link.target.id:
            continue
        seen.add(key)
        (s_low, s_high), (d_low, d_high) = EDGE_TRAITS[link.relation]
        created = max(_created(link.source), _created(link.target))
        created = min(created + timedelta(minutes=b.rng.randint(0, 90)), LAST_SECOND)
        reinforced = _between(b, created, LAST_SECOND) if b.chance(0.3) else created
        later = link.source if _created(link.source) >= _created(link.target) else link.target
        edges.append(Edge.new(
            link.source.id, link.target.id, link.relation, id=b.new_id(), created_at=created,
            evidence=link.evidence, metadata={"recorded_by": later.session.agent},
            tenant=TENANT, strength=round(b.rng.uniform(s_low, s_high), 2),
            decay_rate=round(b.rng.uniform(d_low, d_high), 4), last_reinforced=reinforced,
        ))
    return tuple(edges)
