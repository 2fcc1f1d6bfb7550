"""Agent activity and memory use from a hand-built history of recalls, remembers, cites and
corrections by two agents."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_core.agents.activity import activity
from memory_core.agents.memory_use import memory_use
from memory_core.curation.cite import cite
from memory_core.curation.correct import correct
from memory_core.decay import composite, usage_factor
from memory_core.model.errors import InvalidConfigError
from memory_core.model.records import Memory
from memory_core.retrieval.recall import recall
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

OLD = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def busy(tmp_path) -> MemoryStore:  # noqa: ANN001
    coder = MemoryStore.open(str(tmp_path / "s"), embedder=FakeEmbedder())
    coder.actor = "coder"  # what MEMLENS_ACTOR sets
    coder.add([Memory.new(f"deploy pipeline step {w}", "decision", id=f"m{i}",
                          session_id="c1", created_at=OLD)
               for i, w in enumerate(["build", "test", "ship", "rollback"])])
    recall(coder, "deploy pipeline", limit=2, session_id="c1", actor="coder")
    recall(coder, "deploy pipeline rollback", limit=1, session_id="c2", actor="coder",
           tier="compact")
    reviewer = MemoryStore.open(coder.uri, embedder=FakeEmbedder())
    reviewer.actor = "reviewer"
    sent = recall(reviewer, "deploy pipeline", limit=2, session_id="r1", actor="reviewer")
    cite(reviewer, [sent.items[0]["id"]], session_id="r1", actor="reviewer")
    correct(reviewer, sent.items[1]["id"], verdict="rejected", note="outdated",
            session_id="r1")
    return coder


def test_activity_per_agent_and_session(busy: MemoryStore) -> None:
    act = activity(busy)
    by = {(s.actor, s.session_id): s for s in act.sessions()}
    assert by[("coder", "c1")].recalls == 1 and by[("coder", "c1")].memories_sent == 2
    assert by[("coder", "c1")].remembers == 4  # the add, by coder, in session c1
    assert by[("coder", "c2")].recalls == 1 and by[("coder", "c2")].memories_sent == 1
    r1 = by[("reviewer", "r1")]
    assert (r1.recalls, r1.cites, r1.corrections) == (1, 1, 1)
    recalls = [e for e in act.entries if e.kind == "recall"]
    assert {e.tier for e in recalls} == {"standard", "compact"}
    assert all(e.tokens and e.recall_id and e.query for e in recalls)
    assert act.actors() == ["coder", "reviewer"]
    assert [e.actor for e in activity(busy, actor="reviewer").entries] == ["reviewer"] * 3


def test_activity_frames(busy: MemoryStore) -> None:
    act = activity(busy)
    frame = act.to_frame()
    assert frame.height == len(act.entries) == 6
    assert set(frame["kind"].to_list()) == {"recall", "remember", "cite", "correct"}
    assert act.sessions_frame().height == 3
    over = act.over_time("1d")
    assert over["count"].sum() == 6
    assert set(over.columns) == {"at", "actor", "kind", "count"}


def test_memory_use_lists(busy: MemoryStore) -> None:
    use = memory_use(busy, days=30)
    most = use.recalled_most
    assert most[0].recalls == 2  # sent to coder c1 and reviewer r1
    cited = {r.memory_id for r in most if r.cites}
    assert len(cited) == 1
    assert cited.isdisjoint(r.memory_id for r in use.recalled_never_cited)
    never = {r.memory_id for r in use.not_recalled}
    assert never == {"m0", "m1", "m2", "m3"} - {r.memory_id for r in most}
    assert use.to_frame().height == len(most) + len(use.recalled_never_cited) + len(never)
    with pytest.raises(InvalidConfigError, match="days"):
        memory_use(busy, days=0)


def test_recall_events_reach_decays_usage_factor(busy: MemoryStore) -> None:
    top = memory_use(busy).recalled_most[0]
    memory = busy.get(top.memory_id)
    assert memory.access_count == top.recalls == 2
    factors = composite(memory, memory.last_accessed_at + timedelta(days=1))
    assert factors.usage == usage_factor(2) == pytest.approx(1 + 0.1 * 1.0986, abs=1e-4)
