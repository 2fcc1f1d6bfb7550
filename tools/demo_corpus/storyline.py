"""Storylines into drafts: each storyline becomes a chain of memories across sessions.

A storyline runs through 3-5 sessions of its project in phases (HADES's observation ->
reflection flow, herd's decision_context): `discover` (symptoms, an incident, the topic),
`diagnose` (the cause), `decide` (decision_context and the decision, an HDR), `verify` (the
numbers after the fix, a lesson, a reflection), and for storylines with a `later` option,
`strain` (the choice shows its limits and a new decision supersedes the first).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tools.demo_corpus import phrasing as P
from tools.demo_corpus.builder import Builder, Draft, Trace
from tools.demo_corpus.sessions import Session
from tools.demo_corpus.story import Story
from tools.demo_corpus.world import (
    AGENTS,
    ANA,
    MILESTONES,
    PROJECT_BY_NAME,
    RISKS,
    all_stories,
)

PHASE_PLANS = {
    3: (("discover",), ("diagnose", "decide"), ("verify",)),
    4: (("discover",), ("diagnose",), ("decide",), ("verify",)),
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: A topical tag sometimes added to a storyline memory of this type (tags stay 2-4).
EXTRA_TAGS = {"decision": "architecture", "decision_context": "architecture",
              "event": "incidents", "lesson": "retro", "reflection": "retro",
              "insight": "retro", "skill_idea": "tooling", "pattern": "agents"}


@dataclass(frozen=True)
class Beat:
    """The phases of a storyline that happen in one session."""

    session: Session
    phases: tuple[str, ...]


def schedule(builder: Builder, story: Story) -> list[Beat]:
    """The sessions a storyline runs through, in order, with the phases of each."""
    rng = builder.rng
    sessions = builder.project_sessions(story.project)
    plan = PHASE_PLANS[rng.choice((3, 4, 4))]
    phases = list(plan) + ([("strain",)] if story.later else [])
    span = min(len(sessions), len(phases) + rng.randint(1, 5))
    start = rng.randint(0, len(sessions) - span)
    picks = sorted(rng.sample(range(start, start + span), len(phases)))
    return [Beat(sessions[i], p) for i, p in zip(picks, phases, strict=True)]


def plan_storylines(builder: Builder) -> None:
    """Draft every storyline of the world into `builder` (memories and their links)."""
    rng = builder.rng
    stories = all_stories()
    schedules = {s.key: schedule(builder, s) for s in stories}
    hdrs = _hdr_numbers(stories, schedules)
    tickets: dict[str, str] = {}
    for project in PROJECT_BY_NAME.values():
        keys = [s.key for s in stories if s.project == project.name]
        for key, number in zip(keys, rng.sample(range(120, 990), len(keys)), strict=True):
            tickets[key] = f"{project.ticket_prefix}-{number}"
    for story in stories:
        trace = Trace(story, tickets[story.key], hdrs[(story.key, "decide")],
                      hdrs.get((story.key, "strain")))
        builder.traces[story.key] = trace
        for beat in schedules[story.key]:
            for phase in beat.phases:
                PHASES[phase](builder, trace, beat.session)
        _link_story(builder, trace)
    _link_across(builder)


def _hdr_numbers(stories: tuple[Story, ...],
                 schedules: dict[str, list[Beat]]) -> dict[tuple[str, str], str]:
    """HDR numbers per project, increasing with the session in which each decision is made."""
    events = sorted(
        (beat.session.index, story.key, phase, story.project)
        for story in stories
        for beat in schedules[story.key]
        for phase in beat.phases
        if phase in ("decide", "strain")
    )
    numbers: dict[tuple[str, str], str] = {}
    counters = {name: p.first_hdr for name, p in PROJECT_BY_NAME.items()}
    for _, key, phase, project in events:
        numbers[(key, phase)] = f"HDR-{counters[project]:04d}"
        counters[project] += 1
    return numbers


def _slots(builder: Builder, trace: Trace, session: Session, *, strain: bool = False
           ) -> dict[str, str]:
    rng = builder.rng
    story = trace.story
    metric = story.metric
    before = metric.before * rng.uniform(0.93, 1.07)
    after = metric.after * rng.uniform(0.9, 1.1)
    if metric.unit == "%":
        before = min(before, 100.0)
    project = PROJECT_BY_NAME[story.project]
    others = [s.topic for s in all_stories() if s.project == story.project and s is not story]
    return {
        "key": story.key,
        "agent": session.agent.capitalize(),
        "agent2": rng.choice([a for a in AGENTS if a != session.agent]).capitalize(),
        "human": ANA if rng.random() < 0.12 else project.human,
        "reviewer": "Wardenstein",
        "topic": story.topic, "component": story.component, "file": story.file,
        "symptom": story.symptom, "cause": story.cause, "fix": story.fix,
        "old": story.old, "choice": story.choice,
        "later": story.later or "", "later_reason": story.later_reason or "",
        "mname": metric.name, "before": metric.render(before), "after": metric.render(after),
        "mid": metric.render(after + (before - after) * 0.4),
        "pct": str(round(100 * (before - after) / before)) if before else "0",
        "n": str(rng.randint(3, 9)), "n2": str(rng.randint(4, 40)), "days": str(rng.randint(2, 12)),
        "ticket": trace.ticket, "hdr": (trace.hdr2 or trace.hdr) if strain else trace.hdr,
        "old_hdr": trace.hdr, "repo": story.repo, "project": story.project,
        "date": f"{MONTHS[session.day.month - 1]} {session.day.day}",
        "weekday": WEEKDAYS[session.day.weekday()],
        "inc": f"INC-{session.day:%m%d}-{rng.randint(1, 9)}",
        "ver": f"{project.version}{10 + session.index // 3}.{rng.randint(0, 4)}",
        "other": rng.choice(others), "risk": rng.choice(RISKS),
        "milestone": rng.choice(MILESTONES),
        "hh": f"{rng.randint(0, 23):02d}", "mm": f"{rng.randrange(0, 60, 5):02d}",
    }


def _add(builder: Builder, trace: Trace, session: Session, role: str, memory_type: str,
         text: str, *, metadata: Mapping[str, Any] | None = None, **fields: Any) -> Draft:
    story = trace.story
    tags = list(story.tags)
    extra = EXTRA_TAGS.get(memory_type)
    if extra and extra not in tags and len(tags) < 4 and builder.chance(0.4):
        tags.append(extra)
    draft = builder.add(text, memory_type, session, tags, repo=story.repo, story=story.key,
                        role=role, metadata={"component": story.component_slug, **(metadata or {})},
                        **fields)
    return trace.add(role, draft)


def _say(builder: Builder, trace: Trace, session: Session, role: str, memory_type: str,
         pool_name: str, pool: tuple[str, ...], *, strain: bool = False,
         **fields: Any) -> Draft:
    slots = _slots(builder, trace, session, strain=strain)
    text = P.fill(builder.pick(trace, pool_name, pool), slots)
    return _add(builder, trace, session, role, memory_type, text, **fields)


def _thread(builder: Builder, trace: Trace, session: Session, pool_name: str,
            pool: tuple[str, ...], *, strain: bool = False) -> Draft:
    turn = len(trace.get("thread")) + 1
    slug = trace.story.topic.lower().replace(" ", "-")
    meta = {"turn_index": turn, "thread_id": f"{trace.story.project}/{slug}",
            "ticket_id": trace.ticket}
    return _say(builder, trace, session, "thread", "thread", pool_name, pool, strain=strain,
                metadata=meta)


def _discover(b: Builder, t: Trace, s: Session) -> None:
    ticket = {"ticket_id": t.ticket}
    for _ in range(b.rng.choice((2, 2, 2, 3, 3))):
        _say(b, t, s, "symptom", "observation", "symptom", P.SYMPTOM_OBS, metadata=ticket)
    if b.chance(0.3):
        slots = _slots(b, t, s)
        _add(b, t, s, "incident", "event", P.fill(b.pick(t, "incident", P.INCIDENT_EVENTS), slots),
             metadata={"incident_id": slots["inc"]})
    if b.chance(0.7):
        _say(b, t, s, "topic", "topic", "topic", P.TOPICS, metadata=ticket)
    _thread(b, t, s, "open", P.OPEN_THREADS)
    if b.chance(0.65):
        slots = _slots(b, t, s)
        _add(b, t, s, "baseline", "fact", P.fill(P.FACTS[1][1], slots))
    if b.chance(0.5):
        _fact(b, t, s)
    b.beats[s.id].append(("discover", _slots(b, t, s)))


def _fact(b: Builder, t: Trace, s: Session) -> None:
    role, template = b.pick(t, "fact", [f for f in P.FACTS if f[0] != "baseline"])
    _add(b, t, s, role, "fact", P.fill(template, _slots(b, t, s)))


def _diagnose(b: Builder, t: Trace, s: Session) -> None:
    for _ in range(b.rng.choice((1, 2, 2, 3))):
        _say(b, t, s, "cause", "observation", "cause", P.CAUSE_OBS,
             metadata={"ticket_id": t.ticket})
    if b.chance(0.75):
        _thread(b, t, s, "mid", P.MID_THREADS)
    if b.chance(0.2):
        _say(b, t, s, "early_skill", "skill_idea", "early_skill", P.EARLY_SKILLS)
    if b.chance(0.25):
        _fact(b, t, s)
    b.beats[s.id].append(("diagnose", _slots(b, t, s)))


def _decide(b: Builder, t: Trace, s: Session) -> None:
    hdr = {"hdr_number": t.hdr}
    for _ in range(2 if b.chance(0.2) else 1):
        _say(b, t, s, "decision_context", "decision_context", "context", P.DECISION_CONTEXTS,
             metadata=hdr)
    if b.chance(0.75):
        _say(b, t, s, "prototype", "observation", "prototype", P.PROTOTYPE_OBS,
             metadata={"ticket_id": t.ticket})
    slots = _slots(b, t, s)
    _add(b, t, s, "decision", "decision", P.fill(b.pick(t, "decision", P.DECISIONS), slots),
         why=P.fill(b.rng.choice(P.DECISION_WHYS), slots),
         metadata={"hdr_number": t.hdr, "ticket_id": t.ticket})
    if b.chance(0.5):
        _thread(b, t, s, "mid", P.MID_THREADS)
    if b.chance(0.45):
        _say(b, t, s, "signoff", "event", "signoff", P.SIGNOFF_EVENTS, metadata=hdr)
    if b.chance(0.2):
        slots = _slots(b, t, s)
        _add(b, t, s, "preference", "preference",
             P.fill(b.pick(t, "preference", P.STORY_PREFERENCES), slots),
             why=f"Said while reviewing {t.hdr}.", source="user_statement")
    b.beats[s.id].append(("decide", slots))


def _verify(b: Builder, t: Trace, s: Session) -> None:
    for _ in range(b.rng.choice((1, 1, 2, 2))):
        _say(b, t, s, "verify", "observation", "verify", P.VERIFY_OBS)
    for _ in range(b.rng.choice((0, 1, 1, 2))):
        slots = _slots(b, t, s)
        _add(b, t, s, "ship", "event", P.fill(b.pick(t, "ship", P.SHIP_EVENTS), slots),
             metadata={"release": slots["ver"], "ticket_id": t.ticket})
    slots = _slots(b, t, s)
    _add(b, t, s, "lesson", "lesson", t.story.lesson,
         why=P.fill(b.rng.choice(P.LESSON_WHYS), slots))
    optional = (
        (0.8, "learning", "learning", "learning", P.LEARNINGS),
        (0.85, "reflection", "reflection", "reflection", P.REFLECTIONS),
        (0.45, "insight", "insight", "insight", P.INSIGHTS),
        (0.4, "pattern", "pattern", "pattern", P.PATTERNS),
        (0.2, "late_skill", "skill_idea", "late_skill", P.LATE_SKILLS),
    )
    for p, role, memory_type, pool_name, pool in optional:
        if b.chance(p):
            _say(b, t, s, role, memory_type, pool_name, pool)
    if b.chance(0.55):
        _thread(b, t, s, "close", P.CLOSE_THREADS)
    b.beats[s.id].append(("verify", slots))


def _strain(b: Builder, t: Trace, s: Session) -> None:
    for _ in range(b.rng.choice((1, 2))):
        _say(b, t, s, "strain", "observation", "strain", P.STRAIN_OBS,
             metadata={"ticket_id": t.ticket})
    if b.chance(0.6):
        _thread(b, t, s, "strain_thread", P.STRAIN_THREADS, strain=True)
    hdr2 = t.hdr2 or t.hdr
    _say(b, t, s, "decision_context2", "decision_context", "context2", P.SUPERSEDING_CONTEXTS,
         strain=True, metadata={"hdr_number": hdr2})
    slots = _slots(b, t, s, strain=True)
    new = _add(b, t, s, "decision2", "decision",
               P.fill(b.pick(t, "decision2", P.SUPERSEDING_DECISIONS), slots),
               why=P.fill(b.rng.choice(P.SUPERSEDING_WHYS), slots),
               metadata={"hdr_number": hdr2, "ticket_id": t.ticket, "supersedes_hdr": t.hdr})
    old = t.first("decision")
    if old is not None:
        old.status = "superseded"
        old.replaced_by = new
        old.metadata["superseded_by_hdr"] = hdr2
    if b.chance(0.5):
        _say(b, t, s, "strain_event", "event", "strain_event", P.STRAIN_EVENTS, strain=True)
    if b.chance(0.5):
        _say(b, t, s, "strain_learning", "learning", "strain_learning", P.STRAIN_LEARNINGS)
    b.beats[s.id].append(("strain", slots))


PHASES = {"discover": _discover, "diagnose": _diagnose, "decide": _decide,
          "verify": _verify, "strain": _strain}


def _link_story(b: Builder, t: Trace) -> None:
    """The lineage of a storyline (the causal relations and HADES's derived_from)."""
    rng = b.rng
    ev = (t.ticket, t.hdr)
    dec, dec2, topic = t.first("decision"), t.first("decision2"), t.first("topic")
    symptoms, causes, verifies = t.get("symptom"), t.get("cause"), t.get("verify")
    cause0 = causes[0] if causes else None
    for cause in causes:
        b.link(cause, dec, "caused", *ev)
    for symptom in symptoms[:2]:
        b.link(cause0, symptom, "caused", t.ticket)
    for incident in t.get("incident"):
        b.link(cause0, incident, "caused", t.ticket)
        b.link(incident, symptoms[0] if symptoms else None, "relates_to", t.ticket)
    for role in ("decision_context", "prototype", "verify"):
        for draft in t.get(role):
            b.link(draft, dec, "supports", *ev)
    for pref in t.get("preference"):
        # Only a preference for the chosen option is a reason for the decision.
        b.link(pref, dec, "supports" if t.story.choice in pref.content else "relates_to", *ev)
    for ship in t.get("ship"):
        b.link(dec, ship, "enabled", t.hdr)
    for signoff in t.get("signoff"):
        b.link(signoff, t.first("decision_context"), "relates_to", t.hdr)
    evidence_pool = symptoms + causes + verifies
    for reflection in t.get("reflection"):
        k = min(len(evidence_pool), rng.randint(2, 4))
        for obs in rng.sample(evidence_pool, k):
            b.link(reflection, obs, "derived_from", t.ticket)
    for lesson in t.get("lesson"):
        b.link(lesson, cause0, "derived_from", t.ticket)
        b.link(lesson, verifies[0] if verifies else None, "derived_from", t.ticket)
    for learning in t.get("learning"):
        b.link(learning, rng.choice(causes) if causes else None, "derived_from", t.ticket)
    for insight in t.get("insight"):
        source = t.first("reflection") or (symptoms[0] if symptoms else None)
        b.link(insight, source, "derived_from", t.ticket)
    for pattern in t.get("pattern"):
        b.link(pattern, dec, "supports", t.hdr)
        b.link(pattern, rng.choice(verifies or causes or symptoms), "derived_from", t.ticket)
    for skill in t.get("early_skill"):
        b.link(skill, topic or cause0, "relates_to", t.ticket)
    for skill in t.get("late_skill"):
        b.link(skill, t.first("lesson"), "uses", t.ticket)
    threads = t.get("thread")
    for i, thread in enumerate(threads):
        b.link(thread, topic, "relates_to", t.ticket)
        if i:
            b.link(thread, threads[i - 1], "relates_to", t.ticket)
    for fact in t.get("component_fact"):
        b.link(dec, fact, "uses", t.hdr)
    b.link(dec, t.first("baseline"), "improves", t.hdr)
    for fact in t.get("ticket_fact") + t.get("owner_fact"):
        b.link(fact, topic, "relates_to", t.ticket)
    for strain in t.get("strain"):
        b.link(strain, dec2, "caused", t.ticket, t.hdr2 or "")
        b.link(strain, dec, "contradicts", t.ticket, t.hdr)
    b.link(t.first("decision_context2"), dec2, "supports", t.hdr2 or "")
    b.link(dec2, dec, "supersedes", t.hdr2 or "", t.hdr)
    for event in t.get("strain_event"):
        b.link(dec2, event, "enabled", t.hdr2 or "")
    for learning in t.get("strain_learning"):
        b.link(learning, t.first("strain"), "derived_from", t.ticket)


def _link_across(b: Builder) -> None:
    """Links between storylines of one project that share a tag: an earlier decision enabled
    a later one, and their topics and threads relate."""
    rng = b.rng
    traces = list(b.traces.values())
    for trace in traces:
        peers = [p for p in traces if p is not trace and p.story.project == trace.story.project
                 and set(p.story.tags) & set(trace.story.tags)]
        if not peers:
            continue
        peer = rng.choice(peers)
        mine, theirs = trace.first("decision"), peer.first("decision")
        if mine and theirs and rng.random() < 0.5:
            first, second = sorted((mine, theirs), key=lambda d: d.session.index)
            if first.session.index < second.session.index:
                b.link(first, second, "enabled", first.metadata["hdr_number"],
                       second.metadata["hdr_number"])
        b.link(trace.first("topic"), peer.first("topic"), "relates_to", trace.story.tags[0])
        b.link(trace.first("thread"), peer.first("thread"), "relates_to", trace.story.tags[0])
