"""The demo's recall and cite events, consistent with each memory's access history.

A memory recalled `access_count` times has that many `recall` events: the last one at its
`last_accessed_at`, the others spread between its creation and then. Each recall happened
in the latest session of the memory's project that had started by then (the memory's own
session when none had), by that session's agent, with a query made of a few of the memory's
words. About `CITE_SHARE` of the recalled memories were also cited in an answer minutes after
one of their recalls (their last one half the time), so the demo has cites both inside the
citation window before the demo's clock (`world.END`) and older ones.

Events draw from their own generator: adding them left the memories, edges and queries of
the corpus as they were.
"""

from __future__ import annotations

import bisect
import random
import re
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from memory_core.model.records import Event, Memory
from memory_core.model.validation import validate_event
from tools.demo_corpus.queries import STOPWORDS
from tools.demo_corpus.sessions import Session
from tools.demo_corpus.world import END

#: Share of the recalled memories that were cited too.
CITE_SHARE = 0.05
#: A cite follows its recall by 1 to this many minutes.
CITE_DELAY_MINUTES = 30
#: Words a recall's query takes from the memory (at most).
QUERY_WORDS = 4
_LAST_SECOND = END - timedelta(seconds=1)


def _new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _words(content: str) -> list[str]:
    """The distinct words of `content` a query may take (4+ letters, no stopwords)."""
    return list(dict.fromkeys(w for w in re.findall(r"[a-z][a-z0-9]+", content.lower())
                              if len(w) >= 4 and w not in STOPWORDS))


def _query(rng: random.Random, words: list[str], content: str) -> str:
    """Two to `QUERY_WORDS` of `words`, in text order (the content's start if none)."""
    if not words:
        return content[:40]
    picks = sorted(rng.sample(range(len(words)), min(len(words), rng.randint(2, QUERY_WORDS))))
    return " ".join(words[i] for i in picks)


class _Calendar:
    """The sessions of each project in start order, to find the one running at a time."""

    def __init__(self, sessions: Sequence[Session]) -> None:
        self.by_project: dict[str, list[Session]] = {}
        for session in sorted(sessions, key=lambda s: (s.start, s.id)):
            self.by_project.setdefault(session.project, []).append(session)
        self.starts = {p: [s.start for s in ss] for p, ss in self.by_project.items()}
        self.by_id = {s.id: s for s in sessions}

    def at(self, memory: Memory, when: datetime) -> Session | None:
        """The latest session of the memory's project started by `when`, else its own."""
        project = memory.project or ""
        index = bisect.bisect_right(self.starts.get(project, []), when) - 1
        if index >= 0:
            return self.by_project[project][index]
        return self.by_id.get(memory.session_id or "")


def _recall_times(rng: random.Random, memory: Memory) -> list[datetime]:
    """`access_count` times, whole seconds, oldest first; the last is `last_accessed_at`."""
    last = memory.last_accessed_at
    if last is None or memory.access_count < 1:
        return []
    span = max(0, int((last - memory.created_at).total_seconds()))
    earlier = sorted(rng.randint(0, span) for _ in range(memory.access_count - 1))
    return [memory.created_at + timedelta(seconds=s) for s in earlier] + [last]


def _event(rng: random.Random, kind: str, memory: Memory, when: datetime,
           session: Session | None, query: str, metadata: dict[str, int]) -> Event:
    return validate_event(Event(
        id=_new_id(rng), tenant=memory.tenant, at=when, event_kind=kind, memory_id=memory.id,
        actor=session.agent if session else "memlens",
        session_id=session.id if session else None, query=query, metadata=metadata))


def build_events(memories: Sequence[Memory], sessions: Sequence[Session], seed: int
                 ) -> tuple[Event, ...]:
    """The recall and cite events of `memories` (in their order, then by time)."""
    rng = random.Random(f"demo-events-{seed}")
    calendar = _Calendar(sessions)
    events: list[Event] = []
    for memory in memories:
        times = _recall_times(rng, memory)
        words = _words(memory.content) if times else []
        recalls = []
        for when in times:
            session = calendar.at(memory, when)
            recalls.append(_event(rng, "recall", memory, when, session,
                                  _query(rng, words, memory.content),
                                  {"rank": rng.randint(1, 5)}))
        events += recalls
        if recalls and rng.random() < CITE_SHARE:
            recall = recalls[-1] if rng.random() < 0.5 else rng.choice(recalls)
            when = min(recall.at + timedelta(minutes=rng.randint(1, CITE_DELAY_MINUTES)),
                       _LAST_SECOND)
            events.append(_event(rng, "cite", memory, when, calendar.at(memory, when),
                                 recall.query or "", {}))
    return tuple(events)
