"""`Filter.admits` decides exactly what LanceDB selects under `Filter.to_predicate`.

Session context checks the neighbours no engine returned against the filter in Python
(`Filter.admits`) instead of querying them; a row the two disagree on would be a neighbour
the filter hides lending context, or one it shows left out.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.model.filters import Filter
from memory_core.model.records import Memory
from memory_core.model.schema import IMPORTANCE_TIERS, MEMORY_TYPES
from memory_core.store import MemoryStore
from tests.conftest import FakeEmbedder

T0 = datetime(2026, 3, 1, tzinfo=UTC)
PROJECTS = ["herd", "atlas", "", "it's"]
AGENTS = ["ada", "bo", ""]
TAGS = ["db", "ui", "ops", "o'clock"]
TYPES = list(MEMORY_TYPES[:4])


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """60 memories over every filtered field, unset values (NULLs) and "" included, and
    their rows as `to_pylist` gives them."""
    rng = random.Random(7)
    store = MemoryStore.open(str(tmp_path_factory.mktemp("admits") / "s"),
                             embedder=FakeEmbedder())
    memories = [Memory.new(
        f"memory {i}", rng.choice(TYPES), created_at=T0 + timedelta(hours=i),
        project=rng.choice([*PROJECTS, None]), agent=rng.choice([*AGENTS, None]),
        repo=rng.choice(["r1", None]), session_id=rng.choice(["s1", "s2", None]),
        tags=rng.sample(TAGS, rng.randint(0, 3)), importance=rng.choice(IMPORTANCE_TIERS),
        status=rng.choice(["active", "active", "archived", "superseded"]),
    ) for i in range(60)]
    store.add(memories, dedup=False)
    rows = store.tables.memories.search().limit(None).to_arrow().to_pylist()
    return {"store": store, "rows": rows}


def _subset(values: list[str], *, open_ended: bool = True) -> st.SearchStrategy[Any]:
    """None, one value or a few (with one no row holds, where the field is open-ended)."""
    listed = [*values, "absent"] if open_ended else values
    return st.one_of(st.none(), st.sampled_from(values),
                     st.lists(st.sampled_from(listed), min_size=1, max_size=3))


filters = st.builds(
    Filter,
    project=_subset(PROJECTS), agent=_subset(AGENTS), repo=_subset(["r1", ""]),
    session_id=_subset(["s1", "s2"]), memory_type=_subset(TYPES, open_ended=False),
    tags=_subset(TAGS), tags_mode=st.sampled_from(["any", "all"]),
    status=_subset(["active", "archived", "superseded"], open_ended=False),
    importance=_subset(list(IMPORTANCE_TIERS), open_ended=False),
    created_after=st.one_of(st.none(), st.integers(0, 60).map(
        lambda h: T0 + timedelta(hours=h))),
    created_before=st.one_of(st.none(), st.integers(0, 60).map(
        lambda h: T0 + timedelta(hours=h, microseconds=1))),
)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flt=filters)
def test_admits_exactly_the_rows_the_predicate_selects(table: dict[str, Any],
                                                       flt: Filter) -> None:
    store: MemoryStore = table["store"]
    selected = store.tables.memories.search().where(flt.to_predicate(store.tenant)) \
        .select(["id"]).limit(None).to_arrow()["id"].to_pylist()
    admitted = [r["id"] for r, ok in zip(table["rows"], flt.admits(table["rows"], store.tenant),
                                         strict=True) if ok]
    assert sorted(admitted) == sorted(selected)


def test_another_tenant_and_ids_are_checked_too(table: dict[str, Any]) -> None:
    store: MemoryStore = table["store"]
    rows = table["rows"]
    assert not any(Filter(tenant="someone-else").admits(rows, store.tenant))
    wanted = {rows[3]["id"], rows[9]["id"]}
    flt = Filter(ids=sorted(wanted), status=["active", "archived", "superseded"])
    assert {r["id"] for r, ok in zip(rows, flt.admits(rows, store.tenant), strict=True)
            if ok} == wanted


def test_the_columns_a_filter_reads_are_the_ones_it_restricts() -> None:
    assert Filter().columns() == ("tenant", "status")
    assert Filter(project="p", tags=["x"], created_after=T0).columns() == (
        "tenant", "status", "project", "tags", "created_at")
