"""The session calendar of the demo: 80 working sessions over six months.

A session has one agent, one project and one day; its id follows herd's
`agent-date-letter` form (`steve-2026-05-14-a`, then `-b` for the same agent's second session
that day). Every memory of a session is created within that day.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from tools.demo_corpus.world import AGENTS, END, PROJECTS, START

SESSION_COUNT = sum(p.sessions for p in PROJECTS)
DISTINCT_DAYS = 70
MIN_SESSIONS_PER_AGENT = 4


@dataclass(frozen=True)
class Session:
    """One working session; `index` is its position in the whole calendar (0 = first)."""

    id: str
    agent: str
    project: str
    day: date
    start: datetime
    index: int

    @property
    def day_end(self) -> datetime:
        """The last second of the session's day."""
        return datetime(self.day.year, self.day.month, self.day.day, 23, 59, 59, tzinfo=UTC)


def _weekdays() -> list[date]:
    days = []
    day = START.date()
    while day < END.date():
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def _session_days(rng: random.Random) -> list[date]:
    weekdays = _weekdays()
    # The first and last weekday are always worked, so the corpus spans all six months.
    distinct = [weekdays[0], weekdays[-1], *rng.sample(weekdays[1:-1], DISTINCT_DAYS - 2)]
    repeats = [rng.choice(distinct) for _ in range(SESSION_COUNT - DISTINCT_DAYS)]
    return sorted(distinct + repeats)


def _agents_for(rng: random.Random, projects: list[str]) -> list[str]:
    weights = {p.name: p.agent_weights for p in PROJECTS}
    while True:
        agents = []
        for project in projects:
            names = [name for name, _ in weights[project]]
            agents.append(rng.choices(names, [w for _, w in weights[project]])[0])
        if all(agents.count(a) >= MIN_SESSIONS_PER_AGENT for a in AGENTS):
            return agents


def plan_sessions(rng: random.Random) -> tuple[Session, ...]:
    """The calendar, in chronological order; drawn from `rng` only."""
    days = _session_days(rng)
    projects = [p.name for p in PROJECTS for _ in range(p.sessions)]
    rng.shuffle(projects)
    agents = _agents_for(rng, projects)
    drafts = []
    seen_on_day: dict[date, int] = {}
    for day, project, agent in zip(days, projects, agents, strict=True):
        nth = seen_on_day.get(day, 0)
        seen_on_day[day] = nth + 1
        # A second session on the same day starts in the afternoon.
        hour = rng.randint(7, 9) if nth == 0 else rng.randint(12, 14)
        start = datetime(day.year, day.month, day.day, hour, rng.randrange(0, 60, 5), tzinfo=UTC)
        drafts.append((start, agent, project))
    drafts.sort()
    sessions = []
    letters: dict[tuple[str, date], int] = {}
    for index, (start, agent, project) in enumerate(drafts):
        key = (agent, start.date())
        letter = "abcdefgh"[letters.get(key, 0)]
        letters[key] = letters.get(key, 0) + 1
        sid = f"{agent}-{start.date().isoformat()}-{letter}"
        sessions.append(Session(sid, agent, project, start.date(), start, index))
    return tuple(sessions)
