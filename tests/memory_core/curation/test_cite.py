"""`cite`: cite events for existing memories of the tenant only, and the decay composite's
citation factor they earn in a `full` search (x1.1 within 7 days, not after)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_core.curation import cite, edit, undo
from memory_core.model.errors import CurationError, MemoryNotFoundError, ReadOnlyError
from memory_core.model.records import Memory
from memory_core.retrieval.config import preset
from memory_core.retrieval.search import search
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

NOW = datetime(2026, 10, 1, tzinfo=UTC)


@pytest.fixture
def two(store: MemoryStore) -> MemoryStore:
    store.add([Memory.new("the deploy flag is zebra", "decision", id="a",
                          created_at=NOW - timedelta(days=20)),
               Memory.new("ci caches the lockfile hash", "observation", id="b",
                          created_at=NOW - timedelta(days=20))])
    return store


def test_cite_records_one_event_per_memory(two: MemoryStore) -> None:
    assert cite(two, ["a", "b", "a"], actor="agent-1", session_id="s-9",
                query="what is the flag?", at=NOW) == 2
    events = sorted(two.events.query(kinds=["cite"]), key=lambda e: e.memory_id)
    assert [(e.memory_id, e.actor, e.session_id, e.query, e.at, e.metadata["rank"])
            for e in events] == [("a", "agent-1", "s-9", "what is the flag?", NOW, 1),
                                 ("b", "agent-1", "s-9", "what is the flag?", NOW, 2)]


def test_cite_takes_one_id_as_text_and_defaults_to_the_stores_actor(two: MemoryStore) -> None:
    assert cite(two, "a") == 1
    assert [e.actor for e in two.events.query()] == [two.actor]


def test_a_missing_id_is_named_and_nothing_is_written(two: MemoryStore) -> None:
    with pytest.raises(MemoryNotFoundError, match=r"'nope' \(and 1 more\).*nothing was cited"):
        cite(two, ["a", "nope", "nope2"])
    assert two.events.query() == []
    with pytest.raises(CurationError, match="nothing to cite"):
        cite(two, [])


def test_cite_is_tenant_scoped(two: MemoryStore, store_path: str,
                               fake_embedder: FakeEmbedder) -> None:
    acme = MemoryStore.open(store_path, tenant="acme", embedder=fake_embedder)
    acme.add([Memory.new("acme's own memory", id="x")])
    with pytest.raises(MemoryNotFoundError, match="'a'.*tenant 'acme'"):
        cite(acme, ["a"])
    cite(acme, ["x"])
    cite(two, ["a"])
    assert [e.memory_id for e in acme.events.query()] == ["x"]
    assert [e.memory_id for e in two.events.query()] == ["a"]
    assert [e.tenant for e in acme.events.query()] == ["acme"]


def test_cite_writes_no_audit_row_so_undo_is_not_blocked(two: MemoryStore) -> None:
    batch = edit(two, "a", why="checked").batch_id
    assert batch
    cite(two, ["a"])
    assert undo(two, batch).action == "undo"


def test_a_read_only_store_refuses(two: MemoryStore, store_path: str,
                                   fake_embedder: FakeEmbedder) -> None:
    ro = MemoryStore.open(store_path, embedder=fake_embedder, read_only=True)
    with pytest.raises(ReadOnlyError, match="cite is refused"):
        cite(ro, ["a"])
    assert two.events.query() == []


def _composite(store: MemoryStore, memory_id: str, now: datetime = NOW
               ) -> tuple[float, float]:
    """(composite, citation factor) of the memory's hit in a `full` search at `now`."""
    hits = search(store, "deploy flag zebra", config=preset("full"), now=now)
    hit = next(h for h in hits if h.memory.id == memory_id)
    assert hit.decay_factors is not None
    return hit.decay_factors.composite, hit.decay_factors.citation


def test_a_cite_within_seven_days_lifts_the_composite_by_exactly_1_1(
        two: MemoryStore) -> None:
    plain, factor = _composite(two, "a")
    assert factor == 1.0
    cite(two, ["a"], at=NOW - timedelta(days=8))  # outside the 7-day window
    assert _composite(two, "a") == (plain, 1.0)
    cite(two, ["a"], at=NOW - timedelta(days=6))
    cited, factor = _composite(two, "a")
    assert factor == 1.1 and cited == pytest.approx(plain * 1.1, rel=1e-12)


def test_a_cite_stops_counting_after_seven_days(two: MemoryStore) -> None:
    later = NOW + timedelta(days=7)
    plain_later = _composite(two, "a", later)
    cite(two, ["a"], at=NOW - timedelta(days=1))
    assert _composite(two, "a")[1] == 1.1
    assert _composite(two, "a", later) == plain_later  # the cite is 8 days old then
    assert plain_later[1] == 1.0
