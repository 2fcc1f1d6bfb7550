"""Memories outside any storyline: rules, identities, preferences, agent patterns, facts, and
one summary per session (herd's session_summary, superagents' identity)."""

from __future__ import annotations

from tools.demo_corpus import phrasing as P
from tools.demo_corpus.builder import Builder, Draft
from tools.demo_corpus.lore import AGENT_PATTERNS, PROJECT_FACTS, SKILL_IDEAS
from tools.demo_corpus.sessions import Session
from tools.demo_corpus.storyline import MONTHS, WEEKDAYS
from tools.demo_corpus.world import (
    AGENTS,
    CONSTITUTIONAL,
    CONTRADICTIONS,
    IDENTITIES,
    PREFERENCE_UPDATES,
    PREFERENCES,
    PRINCIPLES,
    Pref,
)

#: Where each pattern's evidence points: pattern index -> storyline key it supports.
PATTERN_SUPPORTS = {0: "herd-spawn-filelist", 1: "herd-review-hdrs", 2: "herd-briefing-options",
                    7: "herd-handoff-notes", 8: "herd-summary-length"}


def plan_cross_cutting(b: Builder) -> None:
    """Constitutional rules, identities, principles, preferences, patterns, skills and facts."""
    _constitutional(b)
    _identities(b)
    for content, tags in PRINCIPLES:
        session = b.rng.choice([s for s in b.sessions if s.agent in ("steve", "wardenstein")])
        b.add(content, "principle", session, tags, source="user_statement",
              metadata={"scope": "cross-project"}, role="principle")
    for pref in PREFERENCES:
        _preference(b, pref, _pref_session(b, pref))
    for first, second in CONTRADICTIONS:
        early, late = _two_sessions(b, first.project)
        a = _preference(b, first, early)
        _preference(b, second, late, contradicts=a)
    for old, new in PREFERENCE_UPDATES:
        early, late = _two_sessions(b, old.project)
        before = _preference(b, old, early)
        after = _preference(b, new, late)
        before.status, before.replaced_by = "superseded", after
        b.link(after, before, "supersedes", "preference update")
    _patterns(b)
    for content, tags in SKILL_IDEAS:
        b.add(content, "skill_idea", b.rng.choice(b.sessions), tags, source="agent_inference",
              role="skill")
    for project, facts in PROJECT_FACTS.items():
        sessions = b.project_sessions(project)
        for content, tags in facts:
            b.add(content, "fact", b.rng.choice(sessions[: len(sessions) // 2]), tags,
                  source="user_statement", role="project_fact")


def _constitutional(b: Builder) -> None:
    for session, rule in zip(b.sessions, CONSTITUTIONAL, strict=False):
        draft = b.add(rule.content, rule.memory_type, session, rule.tags,
                      importance="constitutional", source="user_statement",
                      why="Stated by Faust as a standing rule for every agent.",
                      metadata={"pinned": True, "scope": "all-projects"}, role="constitutional")
        b.constitutional.append((rule, draft))
        for key in rule.supports:
            b.link(draft, b.traces[key].final_decision, "supports", "constitutional rule")


def _identities(b: Builder) -> None:
    for agent, (first, later, supersedes) in IDENTITIES.items():
        mine = [s for s in b.sessions if s.agent == agent]
        meta = {"role": AGENTS[agent]}
        old = b.add(first, "identity", mine[0], ("agents", "identity"), importance="important",
                    source="user_statement", metadata=meta, role="identity")
        new = b.add(later, "identity", mine[len(mine) // 2 + 1], ("agents", "identity"),
                    importance="important", source="user_statement", metadata=meta,
                    role="identity")
        if supersedes:
            old.status, old.replaced_by = "superseded", new
            b.link(new, old, "supersedes", "identity update")
        else:
            b.link(new, old, "relates_to", "identity update")


def _pref_session(b: Builder, pref: Pref) -> Session:
    holder = pref.content.split()[0].lower()
    if pref.project is not None:
        return b.rng.choice(b.project_sessions(pref.project))
    return b.rng.choice([s for s in b.sessions if s.agent == holder] or list(b.sessions))


def _two_sessions(b: Builder, project: str | None) -> tuple[Session, Session]:
    sessions = b.project_sessions(project) if project else list(b.sessions)
    i, j = sorted(b.rng.sample(range(len(sessions)), 2))
    return sessions[i], sessions[j]


def _preference(b: Builder, pref: Pref, session: Session, contradicts: Draft | None = None
                ) -> Draft:
    draft = b.add(pref.content, "preference", session, pref.tags, source="user_statement",
                  why=f"Stated in {session.id}.", role="preference")
    if contradicts is not None:
        b.link(draft, contradicts, "contradicts", "conflicting preferences")
    return draft


def _patterns(b: Builder) -> None:
    for index, entry in enumerate(AGENT_PATTERNS):
        picks = sorted(b.rng.sample(range(len(b.sessions) - 10), len(entry.observations)))
        observations = [
            b.add(text, "observation", b.sessions[i], entry.tags, source="transcript",
                  role="pattern_obs")
            for i, text in zip(picks, entry.observations, strict=True)
        ]
        later = b.sessions[b.rng.randint(picks[-1] + 1, len(b.sessions) - 1)]
        pattern = b.add(entry.pattern, "pattern", later, entry.tags, source="agent_inference",
                        metadata={"occurrences": len(observations)}, role="agent_pattern")
        for obs in observations:
            b.link(pattern, obs, "derived_from", obs.session.id)
        key = PATTERN_SUPPORTS.get(index)
        if key:
            b.link(pattern, b.traces[key].final_decision, "supports", later.id)
        b.patterns.append((entry, pattern, observations))


def plan_summaries(b: Builder) -> None:
    """One session_summary per session, written from what its storylines did that day."""
    for session in b.sessions:
        beats = b.beats[session.id]
        items = [P.fill(b.rng.choice(P.SUMMARY_ITEMS[phase]), slots) for phase, slots in beats]
        if len(items) > 4:
            rest = len(items) - 4
            items = items[:4] + [f"{rest} more {'item' if rest == 1 else 'items'}"]
        if not items:
            items = ["reviewed open threads and tidied stale memories"]
        open_topics = [slots["topic"] for phase, slots in beats if phase != "verify"]
        slots = {
            "sid": session.id, "agent": session.agent.capitalize(), "project": session.project,
            "items": _join(items), "next": open_topics[-1] if open_topics else "open threads",
            "weekday": WEEKDAYS[session.day.weekday()],
            "date": f"{MONTHS[session.day.month - 1]} {session.day.day}",
            "n": str(len(b.by_session[session.id]) + 1),
        }
        tags: list[str] = []
        for _, beat_slots in beats:
            tag = b.traces[beat_slots["key"]].story.tags[0]
            if tag not in tags:
                tags.append(tag)
        if len(tags) < 2:
            tags += [t for t in ("agents", "memory") if t not in tags][: 2 - len(tags)]
        tags = tags[:4]
        decisions = [d for d in b.by_session[session.id] if d.role in ("decision", "decision2")]
        summary = b.add(P.fill(b.rng.choice(P.SUMMARIES), slots), "session_summary", session,
                        tags, source="agent_inference", role="summary",
                        metadata={"memories_recorded": len(b.by_session[session.id]),
                                  "storylines": len({s["topic"] for _, s in beats})})
        b.summaries[session.id] = summary
        for decision in decisions:
            b.link(summary, decision, "relates_to", session.id)


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
