"""Drafts: the mutable plan of the demo corpus before it is frozen into `Memory` and `Edge`.

Generation happens in passes (storylines, cross-cutting memories, duplicates, summaries,
then times and access histories), and later passes need to point back at earlier memories;
drafts are the small mutable records that make that possible. Every random choice goes
through the builder's one `random.Random`, so a seed fixes the whole corpus.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from tools.demo_corpus.sessions import Session
from tools.demo_corpus.story import Story

if TYPE_CHECKING:
    from tools.demo_corpus.lore import AgentPattern
    from tools.demo_corpus.world import Constitutional

T = TypeVar("T")


@dataclass(eq=False)
class Draft:
    """A memory being planned; `story` and `role` say where it sits in its storyline."""

    id: str
    content: str
    memory_type: str
    session: Session
    tags: tuple[str, ...]
    repo: str | None = None
    why: str | None = None
    source: str | None = None
    importance: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    status: str = "active"
    story: str | None = None
    role: str | None = None
    replaced_by: Draft | None = None
    created_at: datetime | None = None


@dataclass(frozen=True, eq=False)
class Link:
    """An edge being planned, from `source` to `target`."""

    source: Draft
    target: Draft
    relation: str
    evidence: tuple[str, ...]


@dataclass
class Trace:
    """The drafts of one storyline by role, and the sessions it ran through."""

    story: Story
    ticket: str
    hdr: str
    hdr2: str | None
    roles: dict[str, list[Draft]] = field(default_factory=dict)
    used: dict[str, set[int]] = field(default_factory=dict)

    def add(self, role: str, draft: Draft) -> Draft:
        self.roles.setdefault(role, []).append(draft)
        return draft

    def get(self, role: str) -> list[Draft]:
        return self.roles.get(role, [])

    def first(self, role: str) -> Draft | None:
        drafts = self.roles.get(role)
        return drafts[0] if drafts else None

    def all(self) -> list[Draft]:
        return [d for drafts in self.roles.values() for d in drafts]

    @property
    def final_decision(self) -> Draft | None:
        """The decision in force at the end: the superseding one when there is one."""
        return self.first("decision2") or self.first("decision")


class Builder:
    """Collects drafts and links; owns the one random generator of a generation run."""

    def __init__(self, rng: random.Random, sessions: Sequence[Session]) -> None:
        self.rng = rng
        self.sessions = tuple(sessions)
        self.drafts: list[Draft] = []
        self.links: list[Link] = []
        self.by_session: dict[str, list[Draft]] = {s.id: [] for s in sessions}
        self.traces: dict[str, Trace] = {}
        #: session id -> (phase, slots) of every storyline beat, for the session summary
        self.beats: dict[str, list[tuple[str, dict[str, str]]]] = {s.id: [] for s in sessions}
        self.duplicates: dict[str, list[Draft]] = {}
        self.constitutional: list[tuple[Constitutional, Draft]] = []
        self.patterns: list[tuple[AgentPattern, Draft, list[Draft]]] = []
        self.summaries: dict[str, Draft] = {}

    def new_id(self) -> str:
        """A uuid4-shaped id drawn from the seeded generator (never `uuid.uuid4()`)."""
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def project_sessions(self, project: str) -> list[Session]:
        return [s for s in self.sessions if s.project == project]

    def add(
        self,
        content: str,
        memory_type: str,
        session: Session,
        tags: Iterable[str],
        **fields: Any,
    ) -> Draft:
        draft = Draft(self.new_id(), content, memory_type, session, tuple(tags), **fields)
        self.drafts.append(draft)
        self.by_session[session.id].append(draft)
        return draft

    def link(self, source: Draft | None, target: Draft | None, relation: str,
             *evidence: str) -> None:
        """Plan an edge; a missing endpoint (an optional memory not drawn) plans nothing."""
        if source is None or target is None or source is target:
            return
        self.links.append(Link(source, target, relation, tuple(e for e in evidence if e)))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, trace: Trace | None, pool_name: str, pool: Sequence[T]) -> T:
        """An item of `pool`, avoiding items this storyline already used from it."""
        if trace is None:
            return self.rng.choice(pool)
        used = trace.used.setdefault(pool_name, set())
        fresh = [i for i in range(len(pool)) if i not in used] or list(range(len(pool)))
        index = self.rng.choice(fresh)
        used.add(index)
        return pool[index]
